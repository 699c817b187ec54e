# SPDX-License-Identifier: GPL-2.0-only
"""Copy the built lanloss ns-3 module into the ns-3 wheel's prefix.

The wheel's Python loader (``from ns import ns``) loads every
``lib64/libns3.44-<name>.so`` that has ``include/ns3/<name>-module.h``. It keeps
only libraries whose real path lies inside the pip install, so the library is
copied, not linked. Usage: ``python -m lanloss.ns3_install BUILD_DIR``.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import sys
from pathlib import Path


def wheel_prefix() -> Path:
    import ns3  # the PyPI wheel's package: a namespace package (no __init__.py)

    return Path(list(ns3.__path__)[0])


def _copy_if_changed(src: Path, dst: Path) -> bool:
    if dst.exists() and filecmp.cmp(src, dst, shallow=False):
        return False
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.copy2(src, tmp)
    os.replace(tmp, dst)
    return True


def install(build: Path) -> int:
    prefix = wheel_prefix()
    libs = sorted((build / "lib").glob("libns3.*-lanloss.so"))
    if not libs:
        print(f"lanloss.ns3_install: no libns3.*-lanloss.so under {build}/lib", file=sys.stderr)
        return 1
    changed = sum(_copy_if_changed(lib, prefix / "lib64" / lib.name) for lib in libs)
    for header in sorted((build / "include" / "ns3").glob("*.h")):
        changed += _copy_if_changed(header, prefix / "include" / "ns3" / header.name)
    if changed:
        print(f"lanloss: installed the ns-3 module into {prefix} ({changed} files)")
    return 0


if __name__ == "__main__":
    sys.exit(install(Path(sys.argv[1] if len(sys.argv) > 1 else "build")))
