# SPDX-License-Identifier: GPL-2.0-only
"""The VM backend's guest image, built once under build/vm/ (``make vm-image``).

What is downloaded (``apt-get download``, Debian's own archive, cached in build/vm/debs):
``linux-image-<ver>-amd64`` (~70 MB: the kernel and its modules, among them e1000 and
e1000e, the real Intel drivers) and ``busybox-static`` (~1 MB: the guest's init and the
shell that mounts the rest). Nothing else: the guest's userspace is this machine's own
``/usr``, shared read-only over 9p (virtio), so the guest runs exactly the ``ethtool``,
``ip``, ``tc``, ``sshd`` and C library the harness was tested with, and the lanloss C
tools built here run there unchanged (the ssh backend copies them, as to any host).

The initramfs (a newc cpio, gzip) holds busybox, the modules the guest needs (the NIC
drivers, virtio-pci/-net for the management NIC, 9p), ``/etc`` for sshd (a host key and
the harness's public key, both made here) and three scripts: ``/etc/rc`` (mount, load the
modules, mount /usr, configure the NICs from the kernel command line), ``/bb/lanloss-nic``
(name and address the data NIC by its MAC) and ``/bb/lanloss-modparam`` (reload the NIC
driver with a module parameter, then the NIC again: how ``InterruptThrottleRate`` is
applied and restored under the journal).
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from lanloss import paths

KERNEL_META = "linux-image-amd64"
PACKAGES = ("busybox-static",)
# Modules the guest loads (with their dependencies, from each .ko's modinfo, loaded first).
MODULES = ("virtio_pci", "virtio_net", "9pnet_virtio", "9p", "e1000", "e1000e")
DRIVERS = ("e1000", "e1000e")  # loaded with the module parameters of the boot (rc)
MGMT_MAC = "52:54:00:ff:00:01"
FORMAT = 1  # bump when the image layout changes: a cached image is rebuilt


def image_dir() -> Path:
    return paths.BUILD / "vm"


def manifest_path() -> Path:
    return image_dir() / "image.json"


def load_manifest() -> dict[str, str] | None:
    """The built image (kernel, initrd, keys), or None if it is missing or stale."""
    try:
        data = json.loads(manifest_path().read_text())
    except (OSError, ValueError):
        return None
    if data.get("format") != FORMAT or data.get("scripts") != _scripts_digest():
        return None
    if not all(os.path.exists(data[k]) for k in ("kernel", "initrd", "key", "known_hosts")):
        return None
    return data


def _run(argv: list[str], cwd: str | Path | None = None) -> str:
    cp = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if cp.returncode != 0:
        msg = (cp.stderr or cp.stdout).strip().splitlines()
        raise RuntimeError(f"`{' '.join(argv)}` failed: {msg[-1] if msg else cp.returncode}")
    return cp.stdout


def _kernel_package() -> str:
    """The versioned kernel package the meta package depends on (linux-image-6.1.0-N-amd64)."""
    out = _run(["apt-cache", "depends", KERNEL_META])
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Depends:") and "linux-image-" in line:
            return line.split(":", 1)[1].strip()
    raise RuntimeError(f"apt-cache: no kernel package behind {KERNEL_META}")


def download(debs: Path) -> list[Path]:
    """apt-get download the kernel and busybox into debs/ (cached: once per version)."""
    debs.mkdir(parents=True, exist_ok=True)
    os.chmod(debs, 0o755)
    want = [_kernel_package(), *PACKAGES]
    have = []
    for pkg in want:
        found = sorted(debs.glob(f"{pkg}_*.deb"))
        if not found:
            print(f"lanloss vm-image: downloading {pkg} (apt-get download)", file=sys.stderr)
            _run(["apt-get", "download", "-q", pkg], cwd=debs)
            found = sorted(debs.glob(f"{pkg}_*.deb"))
        if not found:
            raise RuntimeError(f"apt-get download {pkg}: no .deb in {debs}")
        have.append(found[-1])
    return have


# -- cpio (newc), enough for an initramfs ---------------------------------------------------


class Cpio:
    def __init__(self) -> None:
        self.buf = io.BytesIO()
        self.ino = 1
        self.names: set[str] = set()

    def _entry(self, name: str, mode: int, data: bytes = b"") -> None:
        name = name.lstrip("/")
        if name in self.names:
            return
        self.names.add(name)
        raw = name.encode() + b"\0"
        head = "070701" + "".join(
            f"{v:08x}" for v in (self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(raw), 0)
        )
        self.ino += 1
        self.buf.write(head.encode() + raw)
        self.buf.write(b"\0" * (-(110 + len(raw)) % 4))
        self.buf.write(data)
        self.buf.write(b"\0" * (-len(data) % 4))

    def dir(self, name: str, perm: int = 0o755) -> None:
        parts = name.strip("/").split("/")
        for i in range(1, len(parts)):
            self._entry("/".join(parts[:i]), 0o040000 | 0o755)
        self._entry(name, 0o040000 | perm)

    def file(self, name: str, data: bytes, perm: int = 0o644) -> None:
        parent = os.path.dirname(name.strip("/"))
        if parent:
            self.dir(parent)
        self._entry(name, 0o100000 | perm, data)

    def symlink(self, name: str, target: str) -> None:
        self._entry(name, 0o120000 | 0o777, target.encode())

    def finish(self) -> bytes:
        self._entry("TRAILER!!!", 0)
        return self.buf.getvalue()


# -- guest files -------------------------------------------------------------------------------

SCRIPTS = Path(__file__).resolve().parent / "vm-image"


def _scripts_digest() -> str:
    h = hashlib.sha256(str(FORMAT).encode())
    for f in sorted(SCRIPTS.iterdir()):
        h.update(f.name.encode() + f.read_bytes())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()[:16]


def _depends(ko: Path) -> list[str]:
    """The module's `depends=` (its .modinfo section, as modinfo -F depends prints it)."""
    data = ko.read_bytes()
    at = data.find(b"\0depends=")
    if at < 0:
        return []
    text = data[at + 9 : data.index(b"\0", at + 1)].decode()
    return [d for d in text.split(",") if d]


def _module_order(mods: Path, kver: str) -> list[tuple[str, Path]]:
    """MODULES and what they need, dependencies first."""
    order: list[tuple[str, Path]] = []

    def visit(m: str) -> None:
        if any(m == n for n, _ in order):
            return
        found = glob.glob(str(mods / "**" / f"{m}.ko"), recursive=True)
        if not found:
            raise RuntimeError(f"module {m}.ko not in {kver}")
        for d in _depends(Path(found[0])):
            visit(d)
        order.append((m, Path(found[0])))

    for m in MODULES:
        visit(m)
    return order


def _keys(out: Path) -> tuple[Path, Path, bytes, bytes]:
    """The harness's key pair and the guests' host key (made once, kept with the image)."""
    key, host = out / "id_ed25519", out / "host_ed25519"
    for k in (key, host):
        if not k.exists():
            _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "lanloss-vm", "-f", str(k)])
        os.chmod(k, 0o600)
    return key, host, key.with_suffix(".pub").read_bytes(), host.read_bytes()


def build(force: bool = False) -> dict[str, str]:
    """Build (or reuse) the image; returns the manifest."""
    if not force:
        have = load_manifest()
        if have is not None:
            return have
    out = image_dir()
    out.mkdir(parents=True, exist_ok=True)
    debs = download(out / "debs")
    root = out / "root"
    if root.exists():
        shutil.rmtree(root)
    for deb in debs:
        _run(["dpkg-deb", "-x", str(deb), str(root)])
    kver = sorted(os.listdir(root / "lib" / "modules"))[-1]
    kernel = out / f"vmlinuz-{kver}"
    shutil.copyfile(root / "boot" / f"vmlinuz-{kver}", kernel)
    key, _host, pub, hostkey = _keys(out)
    hostpub = (out / "host_ed25519.pub").read_text().split()
    known = out / "known_hosts"
    known.write_text(f"* {hostpub[0]} {hostpub[1]}\n")

    c = Cpio()
    for d in ("bb", "proc", "sys", "dev", "run", "tmp", "usr", "root", "modules", "etc/ssh"):
        c.dir(d)
    for link, target in (("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib")):
        c.symlink(link, target)
    c.symlink("lib64", "usr/lib64")
    busybox = root / "bin" / "busybox"
    c.file("bb/busybox", busybox.read_bytes(), 0o755)
    c.symlink("bb/sh", "busybox")
    c.symlink("init", "bb/busybox")  # busybox init: reaps orphans, runs /etc/inittab
    order = _module_order(root / "lib" / "modules" / kver / "kernel", kver)
    for m, path in order:
        c.file(f"modules/{m}.ko", path.read_bytes())
    c.file("modules/order", ("\n".join(m for m, _ in order) + "\n").encode())
    for f in sorted(SCRIPTS.iterdir()):
        dest = {"rc": "etc/rc", "inittab": "etc/inittab", "sshd_config": "etc/ssh/sshd_config"}
        c.file(dest.get(f.name, f"bb/{f.name}"), f.read_bytes(), 0o755)
    c.file("etc/ssh/host_ed25519", hostkey, 0o600)
    c.file("etc/ssh/authorized_keys", pub, 0o644)
    c.file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\nsshd:x:100:65534::/run/sshd:/bin/false\n")
    c.file("etc/group", b"root:x:0:\nnogroup:x:65534:\n")
    c.file("etc/shadow", b"root:*:19000:0:99999:7:::\n", 0o600)
    c.file("etc/hosts", b"127.0.0.1 localhost\n")
    c.file("etc/nsswitch.conf", b"passwd: files\ngroup: files\nshadow: files\nhosts: files\n")
    c.file("etc/lanloss-drivers", (" ".join(DRIVERS) + "\n").encode())
    initrd = out / "initrd.gz"
    tmp = initrd.with_suffix(".tmp")
    tmp.write_bytes(gzip.compress(c.finish(), compresslevel=6, mtime=0))
    os.replace(tmp, initrd)
    shutil.rmtree(root)
    manifest = {
        "format": FORMAT,
        "scripts": _scripts_digest(),
        "kernel_version": kver,
        "kernel": str(kernel),
        "initrd": str(initrd),
        "key": str(key),
        "known_hosts": str(known),
        "debs": [d.name for d in debs],
        "mgmt_mac": MGMT_MAC,
    }
    tmpm = manifest_path().with_suffix(".tmp")
    tmpm.write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(tmpm, manifest_path())
    return manifest


def main() -> int:
    force = "--force" in sys.argv[1:]
    try:
        m = build(force)
    except RuntimeError as exc:
        print(f"lanloss vm-image: error: {exc}", file=sys.stderr)
        return 1
    size = sum(os.path.getsize(m[k]) for k in ("kernel", "initrd"))
    print(
        f"lanloss vm-image: {m['kernel_version']}: kernel + initrd {size / 1e6:.1f} MB "
        f"under {image_dir()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
