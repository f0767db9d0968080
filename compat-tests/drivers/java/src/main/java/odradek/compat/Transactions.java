package odradek.compat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The transactional ops of the driver protocol: txn_produce, txn_end and txn_copy.
 *
 * Named transactional producers live from their first step to close (initTransactions once each).
 * kafka-clients 4.x uses transactions v2 (KIP-890) when the broker finalizes transaction.version 2,
 * as Kafka 4.4 and odradek do: no AddPartitionsToTxn, an epoch bump with every EndTxn.
 */
final class Transactions {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    private final String bootstrap;
    private final Map<String, KafkaProducer<byte[], byte[]>> producers = new HashMap<>();
    private final Set<String> open = new HashSet<>();

    Transactions(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    private static byte[] bytes(JsonNode node) {
        return node == null || node.isNull() ? null : B64D.decode(node.asText());
    }

    private KafkaProducer<byte[], byte[]> producer(JsonNode step) {
        String name = step.get("producer").asText();
        KafkaProducer<byte[], byte[]> producer = producers.get(name);
        if (producer == null) {
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            Security.apply(props);
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, step.get("transactional_id").asText());
            props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20000);
            props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16 * 1024 * 1024);
            if (step.path("transaction_timeout_ms").isNumber()) {
                props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, step.get("transaction_timeout_ms").asInt());
            }
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            producer = new KafkaProducer<>(props);
            producer.initTransactions();
            producers.put(name, producer);
        }
        return producer;
    }

    private void begin(String name, KafkaProducer<byte[], byte[]> producer) {
        if (open.add(name)) {
            producer.beginTransaction();
        }
    }

    private void end(String name, KafkaProducer<byte[], byte[]> producer, boolean commit) {
        open.remove(name);
        if (commit) {
            producer.commitTransaction();
        } else {
            producer.abortTransaction();
        }
    }

    ObjectNode produce(JsonNode step) throws Exception {
        String name = step.get("producer").asText();
        String topic = step.get("topic").asText();
        KafkaProducer<byte[], byte[]> producer = producer(step);
        begin(name, producer);
        List<Future<RecordMetadata>> pending = new ArrayList<>();
        for (JsonNode rec : step.path("records")) {
            List<Header> headers = new ArrayList<>();
            for (JsonNode h : rec.path("headers")) {
                headers.add(new RecordHeader(h.get(0).asText(), bytes(h.get(1))));
            }
            Integer partition = rec.path("partition").isNumber() ? rec.get("partition").asInt() : null;
            pending.add(producer.send(new ProducerRecord<>(topic, partition, null, bytes(rec.get("key")),
                    bytes(rec.get("value")), headers)));
        }
        producer.flush();
        ArrayNode results = JSON.createArrayNode();
        for (Future<RecordMetadata> p : pending) {
            RecordMetadata md = p.get();
            ObjectNode r = JSON.createObjectNode();
            r.put("partition", md.partition());
            r.put("offset", md.hasOffset() ? md.offset() : -1L);
            results.add(r);
        }
        String ending = step.path("end").asText("commit");
        if (!ending.equals("open")) {
            end(name, producer, ending.equals("commit"));
        }
        ObjectNode result = JSON.createObjectNode();
        result.set("results", results);
        return result;
    }

    ObjectNode end(JsonNode step) {
        String name = step.get("producer").asText();
        end(name, producers.get(name), step.get("commit").asBoolean());
        return JSON.createObjectNode();
    }

    ObjectNode copy(JsonNode step) throws Exception {
        String name = step.get("producer").asText();
        KafkaProducer<byte[], byte[]> producer = producer(step);
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Security.apply(props);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, step.get("group").asText());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        int wanted = step.get("max_records").asInt();
        long deadline = System.currentTimeMillis() + step.get("timeout_ms").asLong();
        List<ConsumerRecord<byte[], byte[]>> kept = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(step.get("input").asText()));
            while (kept.size() < wanted && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(200))) {
                    if (kept.size() < wanted) {
                        kept.add(rec);
                    }
                }
            }
            ObjectNode result = JSON.createObjectNode();
            result.put("copied", kept.size());
            if (kept.isEmpty()) {
                return result;
            }
            begin(name, producer);
            Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>(
                    (a, b) -> Integer.compare(a.partition(), b.partition()));
            for (ConsumerRecord<byte[], byte[]> rec : kept) {
                producer.send(new ProducerRecord<>(step.get("output").asText(), rec.partition(), null, rec.key(),
                        rec.value(), rec.headers()));
                offsets.put(new TopicPartition(rec.topic(), rec.partition()), new OffsetAndMetadata(rec.offset() + 1));
            }
            producer.sendOffsetsToTransaction(new HashMap<>(offsets), consumer.groupMetadata());
            end(name, producer, true);
            return result;
        }
    }

    void closeAll() {
        for (KafkaProducer<byte[], byte[]> producer : producers.values()) {
            producer.close(Duration.ofSeconds(5));
        }
        producers.clear();
    }
}
