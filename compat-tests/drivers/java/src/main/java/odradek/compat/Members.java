package odradek.compat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Long-lived group members (member_start, members_wait, member_pause, member_stop): each member
 * is one classic-protocol KafkaConsumer owned by its own poll thread, which is the only thread that
 * ever calls the consumer (KafkaConsumer is single-threaded), except for wakeup(), the one method
 * documented as safe from another thread. The step thread reads what the rebalance listener
 * recorded: the current assignment and the count of onPartitionsAssigned calls.
 */
final class Members {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long POLL_MS = 100;
    private static final long SETTLE_MS = 500;

    private final String bootstrap;
    private final Map<String, Member> members = new LinkedHashMap<>();

    Members(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    /** One member: its consumer, its poll thread, and what its rebalance listener saw. */
    private static final class Member implements ConsumerRebalanceListener {
        private final Set<TopicPartition> owned = new HashSet<>();
        private int rebalances;
        private volatile boolean stopping;
        private final AtomicLong pauseMs = new AtomicLong();
        private Thread thread;

        @Override
        public synchronized void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            owned.addAll(partitions);
            rebalances++;
        }

        @Override
        public synchronized void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            owned.removeAll(partitions);
        }

        @Override
        public synchronized void onPartitionsLost(Collection<TopicPartition> partitions) {
            owned.removeAll(partitions);
        }

        synchronized Set<TopicPartition> assignment() {
            return Set.copyOf(owned);
        }

        synchronized int rebalances() {
            return rebalances;
        }

        /** The poll loop: polls until stopping, honouring pauses; closes the consumer at the end. */
        void loop(KafkaConsumer<byte[], byte[]> consumer) {
            try (consumer) {
                while (!stopping) {
                    long pause = pauseMs.getAndSet(0);
                    if (pause > 0) {
                        long until = System.nanoTime() + pause * 1_000_000L;
                        while (!stopping && System.nanoTime() < until) {
                            sleep(Math.min(50, Math.max(1, (until - System.nanoTime()) / 1_000_000L)));
                        }
                        continue;
                    }
                    try {
                        consumer.poll(Duration.ofMillis(POLL_MS));
                    } catch (WakeupException e) {
                        // stop() woke the consumer; the loop condition ends the loop.
                    } catch (Exception e) {
                        System.err.println("member poll failed: " + Driver.errorName(e));
                        sleep(POLL_MS);
                    }
                }
            } catch (Exception e) {
                System.err.println("member close failed: " + Driver.errorName(e));
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts a member in the background; null when the step asks for an assignor this client lacks. */
    synchronized ObjectNode start(JsonNode step) {
        String name = step.get("member").asText();
        if (members.containsKey(name)) {
            throw new IllegalArgumentException("member " + name + " already running");
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        putMs(extra, step, "session_timeout_ms", ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        putMs(extra, step, "heartbeat_interval_ms", ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        putMs(extra, step, "max_poll_interval_ms", ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG);
        JsonNode instance = step.get("group_instance_id");
        if (instance != null && !instance.isNull()) {
            extra.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance.asText());
        }
        KafkaConsumer<byte[], byte[]> consumer = Groups.newConsumer(bootstrap, step, extra);
        if (consumer == null) {
            return null;
        }
        Member member = new Member();
        consumer.subscribe(List.of(step.get("topic").asText()), member);
        member.thread = new Thread(() -> member.loop(consumer), "member-" + name);
        member.thread.setDaemon(true);
        members.put(name, member);
        member.thread.start();
        return JSON.createObjectNode();
    }

    private static void putMs(Map<String, Object> props, JsonNode step, String field, String config) {
        JsonNode v = step.get(field);
        if (v != null && !v.isNull()) {
            props.put(config, v.asInt());
        }
    }

    private synchronized Member member(String name) {
        Member m = members.get(name);
        if (m == null) {
            throw new IllegalArgumentException("no member " + name);
        }
        return m;
    }

    ObjectNode pause(JsonNode step) {
        member(step.get("member").asText()).pauseMs.set(step.path("ms").asLong(0));
        return JSON.createObjectNode();
    }

    ObjectNode stop(JsonNode step) throws InterruptedException {
        String name = step.get("member").asText();
        Member m = member(name);
        halt(m);
        synchronized (this) {
            members.remove(name);
        }
        return JSON.createObjectNode();
    }

    private static void halt(Member m) throws InterruptedException {
        m.stopping = true;
        m.thread.join();
    }

    /** Stops every member still running (the `close` step), all at once. */
    void closeAll() throws InterruptedException {
        List<Member> running;
        synchronized (this) {
            running = new ArrayList<>(members.values());
            members.clear();
        }
        for (Member m : running) {
            m.stopping = true;
        }
        for (Member m : running) {
            m.thread.join();
        }
    }

    /**
     * Waits until the named members each hold a non-empty assignment, no partition twice, and
     * together exactly `partitions` partitions of `topic`, continuously for SETTLE_MS.
     */
    ObjectNode waitFor(JsonNode step) throws InterruptedException, StepFailed {
        List<String> names = new ArrayList<>();
        for (JsonNode n : step.path("members")) {
            names.add(n.asText());
        }
        List<Member> watched = new ArrayList<>();
        for (String name : names) {
            watched.add(member(name));
        }
        String topic = step.get("topic").asText();
        int want = step.path("partitions").asInt();
        long deadline = System.nanoTime() + step.path("timeout_ms").asLong(30000) * 1_000_000L;
        long settledSince = -1;
        List<Set<TopicPartition>> last = null;
        while (true) {
            List<Set<TopicPartition>> now = new ArrayList<>();
            for (Member m : watched) {
                now.add(m.assignment());
            }
            long t = System.nanoTime();
            if (settled(now, topic, want)) {
                if (settledSince < 0 || !now.equals(last)) {
                    settledSince = t;
                }
                if (t - settledSince >= SETTLE_MS * 1_000_000L) {
                    return report(names, watched, now);
                }
            } else {
                settledSince = -1;
            }
            last = now;
            if (t >= deadline) {
                ObjectNode failed = report(names, watched, now);
                failed.put("ok", false);
                failed.put("error", "CLIENT_ERROR:TimeoutException");
                throw new StepFailed(failed);
            }
            Thread.sleep(50);
        }
    }

    private static boolean settled(List<Set<TopicPartition>> assignments, String topic, int want) {
        Set<TopicPartition> seen = new HashSet<>();
        for (Set<TopicPartition> a : assignments) {
            if (a.isEmpty()) {
                return false;
            }
            for (TopicPartition tp : a) {
                if (tp.topic().equals(topic) && !seen.add(tp)) {
                    return false;
                }
            }
        }
        return seen.size() == want;
    }

    private static ObjectNode report(List<String> names, List<Member> watched, List<Set<TopicPartition>> now) {
        List<ArrayNode> assignments = new ArrayList<>();
        ObjectNode byMember = JSON.createObjectNode();
        for (int i = 0; i < names.size(); i++) {
            ArrayNode pairs = Groups.pairs(now.get(i));
            assignments.add(pairs);
            ObjectNode entry = JSON.createObjectNode();
            entry.set("assignment", pairs.deepCopy());
            entry.put("rebalances", watched.get(i).rebalances());
            byMember.set(names.get(i), entry);
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("members", Groups.members(assignments));
        result.set("by_member", byMember);
        return result;
    }

    /** A failed step whose reply carries fields besides `error` (members_wait's last state). */
    static final class StepFailed extends Exception {
        final ObjectNode reply;

        StepFailed(ObjectNode reply) {
            super(reply.path("error").asText());
            this.reply = reply;
        }
    }
}
