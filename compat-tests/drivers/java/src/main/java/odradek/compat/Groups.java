package odradek.compat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Consumer-group steps (group_consume, group_members, committed, describe_group, list_groups) for
 * kafka-clients: classic-protocol KafkaConsumers with subscribe(), and the Admin client.
 * Assignments are reported as sorted [topic, partition] pairs; members ordered by assignment.
 */
final class Groups {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Comparator<TopicPartition> TP_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final String bootstrap;
    private final Admin admin;

    Groups(String bootstrap, Admin admin) {
        this.bootstrap = bootstrap;
        this.admin = admin;
    }

    /** A consumer of step.group subscribed to step.topic, or null when the step's options are unknown. */
    private KafkaConsumer<byte[], byte[]> consumer(JsonNode step) {
        KafkaConsumer<byte[], byte[]> consumer = newConsumer(bootstrap, step, Map.of());
        if (consumer != null) {
            consumer.subscribe(List.of(step.get("topic").asText()));
        }
        return consumer;
    }

    /**
     * A consumer of step.group with auto commit off, step's assignor and auto_offset_reset, and
     * the extra properties; not subscribed yet. Null when the step asks for an unknown assignor.
     */
    static KafkaConsumer<byte[], byte[]> newConsumer(String bootstrap, JsonNode step, Map<String, Object> extra) {
        String assignor;
        switch (step.path("assignor").asText("range")) {
            case "range":
                assignor = RangeAssignor.class.getName();
                break;
            case "roundrobin":
                assignor = RoundRobinAssignor.class.getName();
                break;
            case "sticky":
                assignor = StickyAssignor.class.getName();
                break;
            case "cooperative-sticky":
                assignor = CooperativeStickyAssignor.class.getName();
                break;
            default:
                return null;
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Security.apply(props);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, step.get("group").asText());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, step.path("auto_offset_reset").asText("earliest"));
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor);
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024);
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 16 * 1024 * 1024);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.putAll(extra);
        return new KafkaConsumer<>(props);
    }

    static ArrayNode pairs(Collection<TopicPartition> partitions) {
        List<TopicPartition> sorted = new ArrayList<>(partitions);
        sorted.sort(TP_ORDER);
        ArrayNode out = JSON.createArrayNode();
        for (TopicPartition tp : sorted) {
            out.add(JSON.createArrayNode().add(tp.topic()).add(tp.partition()));
        }
        return out;
    }

    static ArrayNode members(List<ArrayNode> assignments) {
        List<ArrayNode> sorted = new ArrayList<>(assignments);
        sorted.sort(Comparator.comparing(ArrayNode::toString));
        ArrayNode out = JSON.createArrayNode();
        for (ArrayNode a : sorted) {
            ObjectNode m = JSON.createObjectNode();
            m.set("assignment", a);
            out.add(m);
        }
        return out;
    }

    ObjectNode groupConsume(JsonNode step) throws Exception {
        int maxRecords = step.path("max_records").asInt(Integer.MAX_VALUE);
        long timeoutMs = step.path("timeout_ms").asLong(5000);
        List<ConsumerRecord<byte[], byte[]>> kept = new ArrayList<>();
        ObjectNode result = JSON.createObjectNode();
        KafkaConsumer<byte[], byte[]> consumer = consumer(step);
        if (consumer == null) {
            return null;
        }
        try (consumer) {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (kept.size() < maxRecords) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    break;
                }
                for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(Math.min(left, 200)))) {
                    if (kept.size() < maxRecords) {
                        kept.add(rec);
                    }
                }
            }
            result.set("assignment", pairs(consumer.assignment()));
            if (step.path("commit").asBoolean(false) && !kept.isEmpty()) {
                Map<TopicPartition, OffsetAndMetadata> points = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> rec : kept) {
                    points.merge(new TopicPartition(rec.topic(), rec.partition()), new OffsetAndMetadata(rec.offset() + 1),
                            (a, b) -> a.offset() >= b.offset() ? a : b);
                }
                consumer.commitSync(points, Duration.ofSeconds(20));
            }
        }
        kept.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        ArrayNode records = JSON.createArrayNode();
        for (ConsumerRecord<byte[], byte[]> rec : kept) {
            records.add(Driver.recordJson(rec));
        }
        result.set("records", records);
        return result;
    }

    ObjectNode groupMembers(JsonNode step) throws Exception {
        String topic = step.get("topic").asText();
        int total = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        int count = step.path("members").asInt(1);
        long deadline = System.currentTimeMillis() + step.path("timeout_ms").asLong(30000);
        Map<Integer, Set<TopicPartition>> owned = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean(false);
        List<Thread> threads = new ArrayList<>();
        List<Exception> failures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final int index = i;
            owned.put(index, Set.of());
            KafkaConsumer<byte[], byte[]> consumer = consumer(step);
            if (consumer == null) {
                return null;
            }
            Thread t = new Thread(() -> {
                try (consumer) {
                    while (!stop.get()) {
                        consumer.poll(Duration.ofMillis(100));
                        owned.put(index, Set.copyOf(consumer.assignment()));
                    }
                } catch (Exception e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        try {
            while (System.currentTimeMillis() < deadline && !coversExactly(owned, total)) {
                Thread.sleep(50);
            }
        } finally {
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
        }
        synchronized (failures) {
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
        }
        List<ArrayNode> assignments = new ArrayList<>();
        for (Set<TopicPartition> a : owned.values()) {
            assignments.add(pairs(a));
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("members", members(assignments));
        return result;
    }

    private static boolean coversExactly(Map<Integer, Set<TopicPartition>> owned, int total) {
        Set<TopicPartition> seen = new java.util.HashSet<>();
        for (Set<TopicPartition> a : owned.values()) {
            if (a.isEmpty()) {
                return false;
            }
            for (TopicPartition tp : a) {
                if (!seen.add(tp)) {
                    return false;
                }
            }
        }
        return seen.size() == total;
    }

    ObjectNode committed(JsonNode step) throws Exception {
        String group = step.get("group").asText();
        String topic = step.get("topic").asText();
        Map<TopicPartition, OffsetAndMetadata> got =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        ArrayNode offsets = JSON.createArrayNode();
        for (JsonNode p : step.path("partitions")) {
            OffsetAndMetadata om = got.get(new TopicPartition(topic, p.asInt()));
            offsets.add(JSON.createObjectNode().put("partition", p.asInt()).put("offset", om == null ? -1L : om.offset()));
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("offsets", offsets);
        return result;
    }

    ObjectNode describeGroup(JsonNode step) throws Exception {
        String group = step.get("group").asText();
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
        List<ArrayNode> assignments = new ArrayList<>();
        for (MemberDescription m : d.members()) {
            assignments.add(pairs(m.assignment().topicPartitions()));
        }
        ObjectNode result = JSON.createObjectNode();
        result.put("state", d.groupState().toString());
        result.put("protocol", d.partitionAssignor());
        result.put("type", d.type().toString());
        result.set("members", members(assignments));
        return result;
    }

    ObjectNode listGroups() throws Exception {
        Map<String, GroupListing> sorted = new TreeMap<>();
        for (GroupListing g : admin.listGroups().all().get()) {
            sorted.put(g.groupId(), g);
        }
        ArrayNode groups = JSON.createArrayNode();
        for (GroupListing g : sorted.values()) {
            ObjectNode o = JSON.createObjectNode().put("group", g.groupId()).put("protocol_type", g.protocol());
            o.put("state", g.groupState().map(Object::toString).orElse(null));
            o.put("type", g.type().map(Object::toString).orElse(null));
            groups.add(o);
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("groups", groups);
        return result;
    }
}
