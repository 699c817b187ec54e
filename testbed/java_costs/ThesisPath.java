// SPDX-License-Identifier: GPL-2.0-only
//
// Seed 003's Java receiving threads on loopback, to measure what its receiving thread costs
// per message (the thread's own CPU time, user and system):
//   java ThesisPath copy|fresh PORT SIZE COUNT
//
// The threads are the thesis' (003_summary.md, "Method details"), written here from that
// description: a receiving thread that takes one datagram per DatagramSocket.receive() call
// and puts the message in the DataHandler's queue of 10,000 messages; the DataHandler sends
// each message's 8-byte stamp back to a timing port, where a TimeCalculator thread receives
// the echoes. A queue of messages needs an array per message: MODE "copy" receives into one
// reused 65,507-byte packet and queues a copy of the message's bytes; "fresh" receives into
// a new 65,507-byte packet per call and queues its array (64 KiB allocated per message).
//
// The datagrams come to 127.0.0.1:PORT from a sender (thesis_path blast, run beside it);
// the socket asks for a receive buffer of RCVBUF bytes (net.core.rmem_max caps it). The
// thread reads WARMUP datagrams first (the JIT compiles the loop), then windows of WINDOW
// datagrams until COUNT. Before each window the DataHandler has emptied the queue (the
// thread never waits for room in it) and the thread has slept REFILL_MS, so that the
// sender has filled the socket's buffer: the thread finds a datagram waiting at (almost)
// every call. Over the windows only: the thread's CPU time, its voluntary context switches
// (each a sleep: none when it always finds a datagram and room), and the collector's
// collections and milliseconds (GarbageCollectorMXBean). Prints one JSON object; its
// rcvbuf is what getReceiveBufferSize() reports (thesis_path.c's: what getsockopt does,
// the kernel's doubled value), not a measure of the same thing.
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;

public final class ThesisPath {
    static final int MAX_DATAGRAM = 65507;
    static final int QUEUE = 10000; // the DataHandler's queue (the thesis' listing)
    static final int WINDOW = 2000; // datagrams per window: fewer than a full buffer holds
    static final int REFILL_MS = 50; // the sender's time to fill the buffer before a window
    static final int RCVBUF = 4 << 20; // bytes asked of SO_RCVBUF
    static final int WARMUP = 30000; // datagrams read before the first window
    static final int STAMP = 8; // bytes echoed per message
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    static final byte[] END = new byte[0]; // queued after the last message

    /** A thread's CPU time and what it counted, set when its loop ends or at each count. */
    static final class Tally {
        volatile long cpuNs;
        volatile long count;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !(args[0].equals("copy") || args[0].equals("fresh"))) {
            System.err.println("usage: java ThesisPath copy|fresh PORT SIZE COUNT");
            System.exit(2);
        }
        final boolean fresh = args[0].equals("fresh");
        final int port = parsed(args[1]);
        final int size = parsed(args[2]);
        final int count = parsed(args[3]);
        if (port < 1024 || port > 65535 || size < STAMP || size > MAX_DATAGRAM || count < 1) {
            System.err.printf(
                "ThesisPath: PORT 1024-65535, SIZE %d-%d and COUNT >= 1 (got %s %s %s)%n",
                STAMP, MAX_DATAGRAM, args[1], args[2], args[3]);
            System.exit(2);
        }
        InetAddress lo = InetAddress.getLoopbackAddress();
        DatagramSocket data = new DatagramSocket(new InetSocketAddress(lo, port));
        data.setReceiveBufferSize(RCVBUF);
        DatagramSocket timing = new DatagramSocket(new InetSocketAddress(lo, 0));
        ArrayBlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUE);

        Tally handler = new Tally();
        Thread dataHandler =
            new Thread(() -> echoStamps(queue, timing.getLocalSocketAddress(), handler));
        Tally timer = new Tally();
        Thread timeCalculator = new Thread(() -> receiveEchoes(timing, timer));
        timeCalculator.setDaemon(true);
        dataHandler.start();
        timeCalculator.start();

        Receiver rx = new Receiver(data, queue, fresh);
        rx.take(WARMUP);
        long cpu = 0, sleeps = 0, gcN = 0, gcMs = 0, wall = 0;
        for (int left = count; left > 0; left -= WINDOW) {
            while (!queue.isEmpty()) {
                Thread.sleep(1); // room for the whole window: put() never waits
            }
            Thread.sleep(REFILL_MS); // a full socket buffer: receive() never waits
            long gcN0 = gcCollections(), gcMs0 = gcMillis(), sleeps0 = voluntarySwitches();
            long wall0 = System.nanoTime(), cpu0 = MX.getCurrentThreadCpuTime();
            rx.take(Math.min(WINDOW, left));
            cpu += MX.getCurrentThreadCpuTime() - cpu0;
            wall += System.nanoTime() - wall0;
            sleeps += voluntarySwitches() - sleeps0;
            gcN += gcCollections() - gcN0;
            gcMs += gcMillis() - gcMs0;
        }
        queue.put(END);
        dataHandler.join();
        System.out.printf(
            "{\"lang\": \"java\", \"mode\": \"%s\", \"size\": %d, \"warmup\": %d, \"rcvbuf\": %d, "
                + "\"messages\": %d, "
                + "\"recv_cpu_ns\": %d, \"recv_sleeps\": %d, \"wall_ns\": %d, "
                + "\"echoes\": %d, \"echo_cpu_ns\": %d, \"timed\": %d, \"timer_cpu_ns\": %d, "
                + "\"gc_collections\": %d, \"gc_ms\": %d, \"java\": \"%s\"}%n",
            args[0], size, WARMUP, data.getReceiveBufferSize(), count, cpu, sleeps, wall, handler.count, handler.cpuNs, timer.count,
            timer.cpuNs, gcN, gcMs, System.getProperty("java.version"));
        System.exit(0); // the TimeCalculator may still wait for an echo lost on loopback
    }

    /** The receiving thread's loop: one receive() per datagram, the message queued. */
    static final class Receiver {
        final DatagramSocket socket;
        final ArrayBlockingQueue<byte[]> queue;
        final boolean fresh;
        final byte[] buf = new byte[MAX_DATAGRAM];
        DatagramPacket packet = new DatagramPacket(buf, buf.length);

        Receiver(DatagramSocket socket, ArrayBlockingQueue<byte[]> queue, boolean fresh) {
            this.socket = socket;
            this.queue = queue;
            this.fresh = fresh;
        }

        void take(int n) throws IOException, InterruptedException {
            for (int i = 0; i < n; i++) {
                if (fresh) {
                    packet = new DatagramPacket(new byte[MAX_DATAGRAM], MAX_DATAGRAM);
                } else {
                    packet.setLength(buf.length);
                }
                socket.receive(packet);
                queue.put(fresh ? packet.getData() : Arrays.copyOf(buf, packet.getLength()));
            }
        }
    }

    /** @return the whole number @p text, or -1 if it is not one */
    static int parsed(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** @return this thread's voluntary context switches (Linux: /proc/thread-self/status) */
    static long voluntarySwitches() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/thread-self/status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new IOException("no voluntary_ctxt_switches in /proc/thread-self/status");
    }

    /** The DataHandler: each queued message's stamp back to the timing port, until END. */
    static void echoStamps(ArrayBlockingQueue<byte[]> queue, SocketAddress to, Tally t) {
        try (DatagramSocket out = new DatagramSocket()) {
            DatagramPacket echo = new DatagramPacket(new byte[STAMP], STAMP, to);
            long cpu0 = MX.getCurrentThreadCpuTime();
            long n = 0;
            for (byte[] message = queue.take(); message != END; message = queue.take()) {
                echo.setData(message, 0, STAMP); // SIZE >= STAMP
                out.send(echo);
                n++;
            }
            t.cpuNs = MX.getCurrentThreadCpuTime() - cpu0;
            t.count = n;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** The TimeCalculator: receives echoes; its tally is set at each one (it never ends). */
    static void receiveEchoes(DatagramSocket timing, Tally t) {
        try {
            DatagramPacket echo = new DatagramPacket(new byte[STAMP], STAMP);
            long cpu0 = MX.getCurrentThreadCpuTime();
            for (long n = 1; ; n++) {
                echo.setLength(STAMP);
                timing.receive(echo);
                t.count = n;
                t.cpuNs = MX.getCurrentThreadCpuTime() - cpu0;
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static long gcCollections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(gc.getCollectionCount(), 0);
        }
        return n;
    }

    static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(gc.getCollectionTime(), 0);
        }
        return ms;
    }
}
