package odradek.compat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DeletedRecords;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewPartitions;
import java.util.Optional;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * compat-tests driver for Apache Kafka's Java client (kafka-clients).
 *
 * Reads one JSON step per line on stdin and writes exactly one JSON observation per line on
 * stdout (see compat-tests' driver protocol). Every Kafka client object is created for one step
 * and closed before the reply, except the Admin client, which lives for the whole session, and
 * group members (Members), which live from member_start to member_stop or close.
 * Nothing but observations is ever written to stdout: System.out is redirected to stderr.
 */
public final class Driver {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    private final String bootstrap;
    private final PrintStream out;
    private final Members members;
    private final Transactions transactions;
    private Admin admin;

    private Driver(String bootstrap, PrintStream out) {
        this.bootstrap = bootstrap;
        this.out = out;
        this.members = new Members(bootstrap);
        this.transactions = new Transactions(bootstrap);
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        String bootstrap = null;
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--bootstrap")) {
                bootstrap = args[i + 1];
            }
        }
        if (bootstrap == null) {
            System.err.println("usage: driver --bootstrap HOST:PORT");
            System.exit(2);
        }
        new Driver(bootstrap, out).run();
    }

    private void run() throws Exception {
        ObjectNode ready = JSON.createObjectNode();
        ready.put("ready", true);
        ready.put("client", "kafka-clients " + clientVersion());
        emit(ready);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode step = JSON.readTree(line);
            ObjectNode reply = JSON.createObjectNode();
            reply.set("step", step.get("id"));
            String op = step.path("op").asText();
            boolean closing = op.equals("close");
            try {
                ObjectNode result = dispatch(op, step);
                if (result == null) {
                    reply.put("ok", false);
                    reply.put("unsupported", true);
                } else {
                    reply.put("ok", true);
                    reply.setAll(result);
                }
            } catch (Members.StepFailed e) {
                reply.setAll(e.reply);
            } catch (Exception e) {
                reply.put("ok", false);
                reply.put("error", errorName(e));
            }
            emit(reply);
            if (closing) {
                break;
            }
        }
        closeAdmin();
        out.flush();
        System.exit(0);
    }

    /** The version kafka-clients reports about itself (its kafka-version.properties resource). */
    private static String clientVersion() throws java.io.IOException {
        Properties props = new Properties();
        try (java.io.InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in != null) {
                props.load(in);
            }
        }
        return props.getProperty("version", "unknown");
    }

    private void emit(ObjectNode node) throws Exception {
        out.println(JSON.writeValueAsString(node));
        out.flush();
    }

    /** Runs one step; returns null when this client cannot do the step. */
    private ObjectNode dispatch(String op, JsonNode step) throws Exception {
        switch (op) {
            case "create_topic":
                return createTopic(step);
            case "elect_leaders":
                return electLeaders(step);
            case "alter_reassignment":
                return alterReassignment(step);
            case "list_reassignments":
                return listReassignments(step);
            case "describe_cluster":
                return describeCluster();
            case "create_partitions":
                admin().createPartitions(Map.of(step.get("topic").asText(),
                        NewPartitions.increaseTo(step.get("partitions").asInt()))).all().get();
                return JSON.createObjectNode();
            case "delete_topic":
                admin().deleteTopics(List.of(step.get("topic").asText())).all().get();
                return JSON.createObjectNode();
            case "list_topics":
                return listTopics();
            case "produce":
                return produce(step);
            case "consume":
                return consume(step);
            case "list_offsets":
                return listOffsets(step);
            case "describe_configs":
                return describeConfigs(step);
            case "alter_configs":
                return alterConfigs(step);
            case "delete_records":
                return deleteRecords(step);
            case "group_consume":
                return new Groups(bootstrap, admin()).groupConsume(step);
            case "group_members":
                return new Groups(bootstrap, admin()).groupMembers(step);
            case "committed":
                return new Groups(bootstrap, admin()).committed(step);
            case "describe_group":
                return new Groups(bootstrap, admin()).describeGroup(step);
            case "list_groups":
                return new Groups(bootstrap, admin()).listGroups();
            case "member_start":
                return members.start(step);
            case "members_wait":
                return members.waitFor(step);
            case "member_pause":
                return members.pause(step);
            case "member_stop":
                return members.stop(step);
            case "txn_produce":
                return transactions.produce(step);
            case "txn_end":
                return transactions.end(step);
            case "txn_copy":
                return transactions.copy(step);
            case "close":
                members.closeAll();
                transactions.closeAll();
                closeAdmin();
                return JSON.createObjectNode();
            default:
                return null;
        }
    }

    private Admin admin() {
        if (admin == null) {
            Properties props = new Properties();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            Security.apply(props);
            props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15000);
            props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30000);
            admin = Admin.create(props);
        }
        return admin;
    }

    private void closeAdmin() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
            admin = null;
        }
    }

    private ObjectNode createTopic(JsonNode step) throws Exception {
        NewTopic topic = new NewTopic(step.get("topic").asText(), step.path("partitions").asInt(1),
                (short) step.path("replication_factor").asInt(1));
        Map<String, String> configs = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = step.path("configs").fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            configs.put(f.getKey(), f.getValue().isNull() ? null : f.getValue().asText());
        }
        topic.configs(configs);
        admin().createTopics(List.of(topic)).all().get();
        return JSON.createObjectNode();
    }

    private ObjectNode listTopics() throws Exception {
        Set<String> names = admin().listTopics().names().get();
        ObjectNode topics = JSON.createObjectNode();
        if (!names.isEmpty()) {
            Map<String, TopicDescription> described = admin().describeTopics(names).allTopicNames().get();
            for (Map.Entry<String, TopicDescription> e : described.entrySet()) {
                if (!e.getValue().isInternal()) {
                    topics.put(e.getKey(), e.getValue().partitions().size());
                }
            }
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("topics", topics);
        return result;
    }

    private ObjectNode produce(JsonNode step) throws Exception {
        String topic = step.get("topic").asText();
        String acks = step.path("acks").asText("all");
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Security.apply(props);
        props.put(ProducerConfig.ACKS_CONFIG, acks);
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, step.path("compression").asText("none"));
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, step.path("idempotent").asBoolean(false));
        props.put(ProducerConfig.LINGER_MS_CONFIG, step.path("linger_ms").asInt(5));
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20000);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16 * 1024 * 1024);
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        ArrayNode results = JSON.createArrayNode();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            List<Object> pending = new ArrayList<>();
            for (JsonNode rec : step.path("records")) {
                List<Header> headers = new ArrayList<>();
                for (JsonNode h : rec.path("headers")) {
                    headers.add(new RecordHeader(h.get(0).asText(), bytes(h.get(1))));
                }
                Integer partition = rec.path("partition").isNumber() ? rec.get("partition").asInt() : null;
                Long timestamp = rec.path("timestamp").isNumber() ? rec.get("timestamp").asLong() : null;
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, partition, timestamp,
                        bytes(rec.get("key")), bytes(rec.get("value")), headers);
                try {
                    pending.add(producer.send(record));
                } catch (Exception e) {
                    pending.add(e);
                }
            }
            producer.flush();
            for (Object p : pending) {
                ObjectNode r = JSON.createObjectNode();
                try {
                    if (p instanceof Exception) {
                        throw (Exception) p;
                    }
                    @SuppressWarnings("unchecked")
                    RecordMetadata md = ((Future<RecordMetadata>) p).get();
                    r.put("partition", md.partition());
                    r.put("offset", md.hasOffset() ? md.offset() : -1L);
                } catch (Exception e) {
                    r.put("error", errorName(e));
                }
                results.add(r);
            }
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("results", results);
        return result;
    }

    private ObjectNode consume(JsonNode step) throws Exception {
        TopicPartition tp = new TopicPartition(step.get("topic").asText(), step.path("partition").asInt(0));
        int maxRecords = step.path("max_records").asInt(Integer.MAX_VALUE);
        long timeoutMs = step.path("timeout_ms").asLong(5000);
        String isolation = step.path("isolation").asText("read_uncommitted");
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Security.apply(props);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, step.path("auto_offset_reset").asText("none"));
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024);
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 16 * 1024 * 1024);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        ArrayNode records = JSON.createArrayNode();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(tp));
            JsonNode offset = step.path("offset");
            if (offset.isNumber()) {
                consumer.seek(tp, offset.asLong());
            } else if (offset.asText("earliest").equals("latest")) {
                consumer.seekToEnd(List.of(tp));
            } else {
                consumer.seekToBeginning(List.of(tp));
            }
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (records.size() < maxRecords) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    break;
                }
                for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(Math.min(left, 200)))) {
                    if (records.size() >= maxRecords) {
                        break;
                    }
                    ObjectNode r = recordJson(rec);
                    r.put("timestamp_type", rec.timestampType().toString());
                    records.add(r);
                }
            }
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("records", records);
        return result;
    }

    private ObjectNode describeConfigs(JsonNode step) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, step.get("topic").asText());
        boolean synonyms = step.path("synonyms").asBoolean(false);
        DescribeConfigsOptions options = new DescribeConfigsOptions().includeSynonyms(synonyms);
        Config config = admin().describeConfigs(List.of(resource), options).all().get().get(resource);
        List<String> names = new ArrayList<>();
        if (step.path("names").isArray()) {
            step.get("names").forEach(n -> names.add(n.asText()));
        } else {
            config.entries().forEach(e -> names.add(e.name()));
            names.sort(null);
        }
        ObjectNode configs = JSON.createObjectNode();
        for (String name : names) {
            ConfigEntry e = config.get(name);
            if (e == null) {
                continue;
            }
            ObjectNode entry = JSON.createObjectNode();
            entry.put("value", e.value());
            entry.put("source", e.source().name());
            entry.put("read_only", e.isReadOnly());
            entry.put("sensitive", e.isSensitive());
            entry.put("is_default", e.isDefault());
            if (synonyms) {
                ArrayNode list = JSON.createArrayNode();
                for (ConfigEntry.ConfigSynonym s : e.synonyms()) {
                    ObjectNode syn = JSON.createObjectNode();
                    syn.put("name", s.name());
                    syn.put("value", s.value());
                    syn.put("source", s.source().name());
                    list.add(syn);
                }
                entry.set("synonyms", list);
            }
            configs.set(name, entry);
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("configs", configs);
        return result;
    }

    private ObjectNode alterConfigs(JsonNode step) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, step.get("topic").asText());
        List<AlterConfigOp> ops = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> set = step.path("set").fields();
        while (set.hasNext()) {
            Map.Entry<String, JsonNode> f = set.next();
            ops.add(new AlterConfigOp(new ConfigEntry(f.getKey(), f.getValue().asText()), AlterConfigOp.OpType.SET));
        }
        for (JsonNode name : step.path("delete")) {
            ops.add(new AlterConfigOp(new ConfigEntry(name.asText(), null), AlterConfigOp.OpType.DELETE));
        }
        admin().incrementalAlterConfigs(Map.of(resource, ops)).all().get();
        return JSON.createObjectNode();
    }

    private ObjectNode electLeaders(JsonNode step) throws Exception {
        ElectionType type = "unclean".equals(step.path("election").asText("preferred"))
                ? ElectionType.UNCLEAN : ElectionType.PREFERRED;
        Set<TopicPartition> partitions = new java.util.TreeSet<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        for (JsonNode p : step.get("partitions")) {
            partitions.add(new TopicPartition(step.get("topic").asText(), p.asInt()));
        }
        Map<TopicPartition, Optional<Throwable>> outcome = admin().electLeaders(type, partitions).partitions().get();
        ArrayNode results = JSON.createArrayNode();
        for (TopicPartition tp : partitions) {
            ObjectNode r = results.addObject();
            r.put("partition", tp.partition());
            Optional<Throwable> error = outcome.get(tp);
            if (error == null || error.isEmpty()) {
                r.putNull("error");
            } else {
                r.put("error", errorName(error.get()));
            }
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.set("results", results);
        return reply;
    }

    private ObjectNode alterReassignment(JsonNode step) throws Exception {
        TopicPartition tp = new TopicPartition(step.get("topic").asText(), step.get("partition").asInt());
        Optional<NewPartitionReassignment> target = Optional.empty();
        if (!step.path("replicas").isNull() && step.has("replicas")) {
            List<Integer> replicas = new ArrayList<>();
            step.get("replicas").forEach(r -> replicas.add(r.asInt()));
            target = Optional.of(new NewPartitionReassignment(replicas));
        }
        admin().alterPartitionReassignments(Map.of(tp, target)).all().get();
        return JSON.createObjectNode();
    }

    private ObjectNode listReassignments(JsonNode step) throws Exception {
        Set<TopicPartition> asked = new java.util.HashSet<>();
        for (JsonNode p : step.get("partitions")) {
            asked.add(new TopicPartition(step.get("topic").asText(), p.asInt()));
        }
        ArrayNode listed = JSON.createArrayNode();
        for (TopicPartition tp : admin().listPartitionReassignments(asked).reassignments().get().keySet()) {
            listed.addArray().add(tp.topic()).add(tp.partition());
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.set("reassignments", listed);
        return reply;
    }

    private ObjectNode describeCluster() throws Exception {
        DescribeClusterResult described = admin().describeCluster();
        ArrayNode brokers = JSON.createArrayNode();
        described.nodes().get().stream().map(Node::id).sorted().forEach(brokers::add);
        ObjectNode reply = JSON.createObjectNode();
        reply.set("brokers", brokers);
        reply.put("controller", described.controller().get().id());
        return reply;
    }

    private ObjectNode deleteRecords(JsonNode step) throws Exception {
        TopicPartition tp = new TopicPartition(step.get("topic").asText(), step.path("partition").asInt(0));
        RecordsToDelete before = RecordsToDelete.beforeOffset(step.get("before_offset").asLong());
        DeletedRecords deleted = admin().deleteRecords(Map.of(tp, before)).lowWatermarks().get(tp).get();
        ObjectNode result = JSON.createObjectNode();
        result.put("low_watermark", deleted.lowWatermark());
        return result;
    }

    static ObjectNode recordJson(ConsumerRecord<byte[], byte[]> rec) {
        ObjectNode r = JSON.createObjectNode();
        r.put("partition", rec.partition());
        r.put("offset", rec.offset());
        r.put("key", b64(rec.key()));
        r.put("value", b64(rec.value()));
        ArrayNode headers = JSON.createArrayNode();
        for (Header h : rec.headers()) {
            ArrayNode pair = JSON.createArrayNode();
            pair.add(h.key());
            pair.add(b64(h.value()));
            headers.add(pair);
        }
        r.set("headers", headers);
        r.put("timestamp", rec.timestamp());
        return r;
    }

    private ObjectNode listOffsets(JsonNode step) throws Exception {
        TopicPartition tp = new TopicPartition(step.get("topic").asText(), step.path("partition").asInt(0));
        JsonNode spec = step.path("spec");
        OffsetSpec offsetSpec;
        if (spec.isObject()) {
            offsetSpec = OffsetSpec.forTimestamp(spec.get("timestamp").asLong());
        } else {
            switch (spec.asText()) {
                case "earliest":
                    offsetSpec = OffsetSpec.earliest();
                    break;
                case "latest":
                    offsetSpec = OffsetSpec.latest();
                    break;
                case "max_timestamp":
                    offsetSpec = OffsetSpec.maxTimestamp();
                    break;
                default:
                    return null;
            }
        }
        ListOffsetsResultInfo info = admin().listOffsets(Map.of(tp, offsetSpec)).partitionResult(tp).get();
        ObjectNode result = JSON.createObjectNode();
        result.put("offset", info.offset());
        if (info.timestamp() < 0) {
            result.putNull("timestamp");
        } else {
            result.put("timestamp", info.timestamp());
        }
        return result;
    }

    private static byte[] bytes(JsonNode node) {
        return node == null || node.isNull() ? null : B64D.decode(node.asText());
    }

    private static String b64(byte[] data) {
        return data == null ? null : B64.encodeToString(data);
    }

    /**
     * Kafka's error name for a failure: the client's exception class maps to an error code.
     * Client-side failures with no Kafka code (timeouts, configuration, serialization) become
     * CLIENT_ERROR with the exception's class name. The consumer's own OffsetOutOfRangeException
     * (raised with auto.offset.reset=none) is not an ApiException but stands for that code.
     */
    static String errorName(Throwable e) {
        Throwable shown = null;
        Throwable t = e;
        for (int depth = 0; t != null && depth < 16; depth++) {
            if (t instanceof org.apache.kafka.clients.consumer.OffsetOutOfRangeException) {
                return Errors.OFFSET_OUT_OF_RANGE.name();
            }
            if (t instanceof ApiException && !(t instanceof TimeoutException)) {
                Errors err = Errors.forException(t);
                if (err != Errors.UNKNOWN_SERVER_ERROR || t instanceof UnknownServerException) {
                    return err.name();
                }
            }
            if (shown == null && !(t instanceof ExecutionException)) {
                shown = t;
            }
            t = t.getCause() == t ? null : t.getCause();
        }
        if (shown == null) {
            shown = e;
        }
        String msg = shown.getMessage() == null ? "" : ": " + shown.getMessage();
        if (msg.length() > 160) {
            msg = msg.substring(0, 160);
        }
        return "CLIENT_ERROR:" + shown.getClass().getSimpleName() + msg;
    }
}
