// SPDX-License-Identifier: GPL-2.0-only
//
// Seed 003's Java message path on loopback, to measure what each of its threads costs per
// message (the thread's own CPU time, user and system): java ThesisPath MODE SIZE COUNT
//
// The threads are the thesis' (003_summary.md, "Method details"), written here from that
// description: a receiving thread that takes one datagram per DatagramSocket.receive() call
// and puts the message in the DataHandler's queue of 10,000 messages; the DataHandler sends
// each message's 8-byte stamp back to the sender's timing port; a TimeCalculator thread on
// that port receives the echoes. A sender thread here offers SIZE-byte datagrams back to
// back until the receiving thread has COUNT of them. A queue of messages needs an array per
// message: MODE "copy" receives into one reused 65,507-byte packet and queues a copy of the
// message's bytes; "fresh" receives into a new 65,507-byte packet per call and queues its
// array (64 KiB allocated per message).
//
// Prints one JSON object: messages received (COUNT: the sender stops only once they all
// arrived, so datagrams the socket dropped are not among them), echoes sent, echoes timed,
// each thread's CPU nanoseconds, and the collector's collections and milliseconds
// (GarbageCollectorMXBean) while the receiving thread ran.
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;

public final class ThesisPath {
    static final int MAX_DATAGRAM = 65507;
    static final int QUEUE = 10000; // the DataHandler's queue (the thesis' listing)
    static final int STAMP = 8; // bytes echoed per message
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    static final byte[] END = new byte[0]; // queued after the last message

    static volatile boolean stop;

    /** A thread's CPU time (user + system) and what it counted, set when its loop ends. */
    static final class Tally {
        volatile long cpuNs;
        volatile long count;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !(args[0].equals("copy") || args[0].equals("fresh"))) {
            System.err.println("usage: java ThesisPath copy|fresh SIZE COUNT");
            System.exit(2);
        }
        boolean fresh = args[0].equals("fresh");
        final int size = parsed(args[1]);
        final long count = parsed(args[2]);
        if (size < STAMP || size > MAX_DATAGRAM || count < 1) {
            System.err.printf("ThesisPath: SIZE %d-%d and COUNT >= 1 (got %s %s)%n", STAMP,
                MAX_DATAGRAM, args[1], args[2]);
            System.exit(2);
        }
        InetAddress lo = InetAddress.getLoopbackAddress();

        DatagramSocket data = new DatagramSocket(new InetSocketAddress(lo, 0));
        DatagramSocket timing = new DatagramSocket(new InetSocketAddress(lo, 0));
        ArrayBlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUE);

        Tally handler = new Tally();
        Thread dataHandler = new Thread(() -> echoStamps(queue, timing.getLocalSocketAddress(), handler));
        Tally timer = new Tally();
        Thread timeCalculator = new Thread(() -> receiveEchoes(timing, count, timer));
        Thread sender = new Thread(() -> offer(size, data.getLocalSocketAddress()));
        sender.setDaemon(true);
        timeCalculator.setDaemon(true);
        dataHandler.start();
        timeCalculator.start();
        sender.start();

        long gcCount0 = gcCollections(), gcMs0 = gcMillis(), wall0 = System.nanoTime();
        long cpu0 = MX.getCurrentThreadCpuTime();
        byte[] buf = new byte[MAX_DATAGRAM];
        DatagramPacket packet = new DatagramPacket(buf, buf.length);
        for (long i = 0; i < count; i++) {
            if (fresh) {
                packet = new DatagramPacket(new byte[MAX_DATAGRAM], MAX_DATAGRAM);
            } else {
                packet.setLength(buf.length);
            }
            data.receive(packet);
            if (fresh) {
                queue.put(packet.getData());
            } else {
                queue.put(java.util.Arrays.copyOf(buf, packet.getLength()));
            }
        }
        long recvCpu = MX.getCurrentThreadCpuTime() - cpu0;
        long wall = System.nanoTime() - wall0;
        long gcN = gcCollections() - gcCount0, gcMs = gcMillis() - gcMs0;
        stop = true;
        queue.put(END);
        dataHandler.join();
        timeCalculator.join(2000); // echoes lost on loopback never come: do not wait for them
        System.out.printf(
            "{\"lang\": \"java\", \"mode\": \"%s\", \"size\": %d, \"messages\": %d, "
                + "\"recv_cpu_ns\": %d, \"echoes\": %d, \"echo_cpu_ns\": %d, \"timed\": %d, "
                + "\"timer_cpu_ns\": %d, \"wall_ns\": %d, \"gc_collections\": %d, \"gc_ms\": %d, "
                + "\"java\": \"%s\"}%n",
            args[0], size, count, recvCpu, handler.count, handler.cpuNs, timer.count,
            timer.cpuNs, wall, gcN, gcMs,
            System.getProperty("java.version"));
        System.exit(0);
    }

    /** @return the whole number @p text, or -1 if it is not one */
    static int parsed(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The DataHandler: each queued message's stamp back to the timing port, until END. */
    static void echoStamps(ArrayBlockingQueue<byte[]> queue, java.net.SocketAddress to, Tally t) {
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

    /** The TimeCalculator: receives echoes; its tally is set at each one (it may never end). */
    static void receiveEchoes(DatagramSocket timing, long count, Tally t) {
        try {
            DatagramPacket echo = new DatagramPacket(new byte[STAMP], STAMP);
            long cpu0 = MX.getCurrentThreadCpuTime();
            for (long n = 1; n <= count; n++) {
                echo.setLength(STAMP);
                timing.receive(echo);
                t.count = n;
                t.cpuNs = MX.getCurrentThreadCpuTime() - cpu0;
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** SIZE-byte datagrams back to back until stop, each carrying its number. */
    static void offer(int size, java.net.SocketAddress to) {
        try (DatagramSocket out = new DatagramSocket()) {
            byte[] b = new byte[size];
            DatagramPacket p = new DatagramPacket(b, size, to);
            for (long n = 0; !stop; n++) {
                for (int k = 0; k < STAMP; k++) {
                    b[k] = (byte) (n >>> (8 * k));
                }
                out.send(p);
                if ((n & 63) == 0) {
                    Thread.yield(); // let the receiving threads run on a machine of few cores
                }
            }
        } catch (Exception e) {
            if (!stop) {
                throw new RuntimeException(e);
            }
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
