// SPDX-License-Identifier: GPL-2.0-only
//
// Seed 003's Java receiver as a stream, to see what its collector's pauses lose:
//   java ThesisStream PORT SIZE WARM COUNT RCVBUF
//
// The thesis' threads (ThesisPath's: the receiving thread, one DatagramSocket.receive() per
// datagram and a copy of each message put in the DataHandler's queue; the DataHandler's
// echo of each stamp; the TimeCalculator) read a paced sender's COUNT datagrams of SIZE
// bytes, each numbered in its first 8 bytes (little-endian), from a socket that asked for
// RCVBUF bytes. It prints "ready" once its socket is bound, reads until COUNT datagrams
// came or none came for IDLE_MS (the rest were lost), and prints one JSON object: what it
// received, the highest number it saw, and the collector's collections when the first
// datagram came and at the end (the collections in between are the ones during the traffic).
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;

public final class ThesisStream {
    static final int FIRST_WAIT_MS = 20000; // for the sender's first datagram
    static final int IDLE_MS = 500; // after the last one

    public static void main(String[] args) throws Exception {
        boolean five = args.length == 5;
        int port = five ? ThesisPath.parsed(args[0]) : -1;
        int size = five ? ThesisPath.parsed(args[1]) : -1;
        int warm = five ? ThesisPath.parsed(args[2]) : -1;
        int count = five ? ThesisPath.parsed(args[3]) : -1;
        int rcvbuf = five ? ThesisPath.parsed(args[4]) : -1;
        if (port < 1024 || port > 65535 || size < ThesisPath.STAMP
            || size > ThesisPath.MAX_DATAGRAM || warm < 0 || count < 1 || rcvbuf < 1) {
            System.err.printf(
                "ThesisStream: PORT 1024-65535, SIZE %d-%d, WARM >= 0, COUNT >= 1 and RCVBUF >= 1"
                    + " (got %s)%n",
                ThesisPath.STAMP, ThesisPath.MAX_DATAGRAM, String.join(" ", args));
            System.exit(2);
        }
        InetAddress lo = InetAddress.getLoopbackAddress();
        DatagramSocket data = new DatagramSocket(new InetSocketAddress(lo, port));
        data.setReceiveBufferSize(rcvbuf);
        DatagramSocket timing = new DatagramSocket(new InetSocketAddress(lo, 0));
        ArrayBlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(ThesisPath.QUEUE);
        ThesisPath.Tally handler = new ThesisPath.Tally();
        Thread dataHandler = new Thread(
            () -> ThesisPath.echoStamps(queue, timing.getLocalSocketAddress(), handler));
        ThesisPath.Tally timer = new ThesisPath.Tally();
        Thread timeCalculator = new Thread(() -> ThesisPath.receiveEchoes(timing, timer));
        timeCalculator.setDaemon(true);
        dataHandler.start();
        timeCalculator.start();
        System.out.println("ready");
        System.out.flush();

        byte[] buf = new byte[ThesisPath.MAX_DATAGRAM];
        DatagramPacket packet = new DatagramPacket(buf, buf.length);
        ByteBuffer number = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
        long received = 0, highest = -1, gcFirst = -1;
        data.setSoTimeout(FIRST_WAIT_MS);
        try {
            while (highest < warm + count - 1) {
                packet.setLength(buf.length);
                data.receive(packet);
                data.setSoTimeout(IDLE_MS);
                long n = number.getLong(0);
                if (n >= warm && gcFirst < 0) {
                    gcFirst = ThesisPath.gcCollections();
                }
                highest = Math.max(highest, n);
                queue.put(Arrays.copyOf(buf, packet.getLength()));
                received += n >= warm ? 1 : 0;
            }
        } catch (SocketTimeoutException e) {
            // nothing for IDLE_MS: the sender is done and the rest were lost
        }
        long gcLast = ThesisPath.gcCollections();
        queue.put(ThesisPath.END);
        dataHandler.join();
        System.out.printf(
            "{\"size\": %d, \"warm\": %d, \"count\": %d, \"rcvbuf\": %d, \"received\": %d, "
                + "\"highest\": %d, \"echoes\": %d, \"gc_first\": %d, \"gc_last\": %d}%n",
            size, warm, count, data.getReceiveBufferSize(), received, highest, handler.count,
            gcFirst < 0 ? gcLast : gcFirst, gcLast);
        System.exit(0); // the TimeCalculator may still wait for an echo lost on loopback
    }
}
