'use strict'
/**
 * compat-tests driver for kafkajs.
 *
 * Reads one JSON step per line on stdin and writes exactly one JSON observation per line on
 * stdout (compat-tests' driver protocol); kafkajs logs go to stderr.
 *
 * kafkajs has no assign()-mode consumer (its consumer always joins a group) and its admin API
 * neither returns ListOffsets timestamps nor passes "no offset" (-1) through, so consume and
 * list_offsets speak to the partition leader through kafkajs's own cluster and broker objects
 * (the requests are still encoded and decoded by kafkajs). Codecs: gzip is built in, snappy comes
 * from kafkajs-snappy (pure JavaScript), lz4 from kafkajs-lz4 (its lz4 dependency is compiled by
 * node-gyp at `npm ci`), zstd has no codec that builds for this Node version (@kafkajs/zstd's
 * cppzst fails to compile), so zstd steps, and fetches that meet zstd batches, answer
 * unsupported. kafkajs has no max-timestamp listing either.
 */
const fs = require('fs')
const readline = require('readline')
const {
  Kafka,
  CompressionTypes,
  CompressionCodecs,
  Partitioners,
  logLevel,
} = require('kafkajs')
const Batch = require('kafkajs/src/consumer/batch')
const SnappyCodec = require('kafkajs-snappy')
const LZ4Codec = require('kafkajs-lz4')
const kafkajsVersion = require('kafkajs/package.json').version
const { Unsupported, StepFailed, b64, headersList } = require('./common')
const { groupSteps } = require('./groups')
const { Members } = require('./members')
const { txnSteps } = require('./txn')

CompressionCodecs[CompressionTypes.Snappy] = SnappyCodec
CompressionCodecs[CompressionTypes.LZ4] = new LZ4Codec().codec

const CODECS = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
}
const ACKS = { all: -1, '-1': -1, 1: 1, 0: 0 }
const READ_UNCOMMITTED = 0
const READ_COMMITTED = 1


const stderrLogger = () => ({ namespace, level, label, log }) => {
  const { message, ...extra } = log
  process.stderr.write(`[kafkajs ${label}] ${namespace}: ${message} ${JSON.stringify(extra)}\n`)
}

function parseArgs(argv) {
  const i = argv.indexOf('--bootstrap')
  if (i < 0 || i + 1 >= argv.length) {
    process.stderr.write('usage: driver.js --bootstrap HOST:PORT\n')
    process.exit(2)
  }
  return argv[i + 1]
}

const unb64 = s => (s == null ? null : Buffer.from(s, 'base64'))

/** Kafka's error name for a kafkajs failure, or CLIENT_ERROR:<text> when there is no Kafka code. */
function errorName(err) {
  const seen = new Set()
  for (let e = err; e && !seen.has(e); e = e.originalError || e.cause || (e.errors && e.errors[0])) {
    seen.add(e)
    if (e.type && typeof e.type === 'string' && e.type !== 'UNKNOWN') {
      return e.type
    }
  }
  const text = `${err && err.name ? err.name : 'Error'}: ${err && err.message ? err.message : err}`
  return 'CLIENT_ERROR:' + text.slice(0, 160)
}

function isNotImplemented(err) {
  const seen = new Set()
  for (let e = err; e && !seen.has(e); e = e.originalError || e.cause) {
    seen.add(e)
    if (e.name === 'KafkaJSNotImplemented') {
      return true
    }
  }
  return false
}

/**
 * kafkajs takes headers as an object (a repeated name becomes an array of values), so only lists
 * in which every name's values are adjacent, and whose names are not integer-like (JavaScript
 * orders those first), survive the trip in order. Its record encoder cannot size a null header
 * value, so those are unsupported too.
 */
function headersObject(pairs) {
  const out = {}
  let last = null
  for (const [name, value] of pairs || []) {
    if (/^(0|[1-9][0-9]*)$/.test(name)) {
      throw new Unsupported('integer-like header name')
    }
    if (value == null) {
      throw new Unsupported('null header value')
    }
    const v = unb64(value)
    if (!Object.prototype.hasOwnProperty.call(out, name)) {
      out[name] = v
    } else if (last !== name) {
      throw new Unsupported('interleaved repeated header names')
    } else if (Array.isArray(out[name])) {
      out[name].push(v)
    } else {
      out[name] = [out[name], v]
    }
    last = name
  }
  return out
}

/**
 * kafkajs's ssl and sasl settings for the secured connection in COMPAT_SECURITY (PROTOCOL.md), if
 * any; OAUTHBEARER sends the harness's unsecured JWS.
 */
function securityConfig() {
  const text = process.env.COMPAT_SECURITY
  if (!text) return {}
  const s = JSON.parse(text)
  const config = {}
  if (s.ca) {
    config.ssl = { ca: [fs.readFileSync(s.ca, 'utf8')] }
    if (s.cert) {
      config.ssl.cert = fs.readFileSync(s.cert, 'utf8')
      config.ssl.key = fs.readFileSync(s.key, 'utf8')
    }
  }
  if (s.mechanism === 'OAUTHBEARER') {
    config.sasl = { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: s.token }) }
  } else if (s.mechanism) {
    config.sasl = { mechanism: s.mechanism.toLowerCase(), username: s.username, password: s.password }
  }
  return config
}

class Driver {
  constructor(bootstrap) {
    this.kafka = new Kafka({
      clientId: 'odradek-compat',
      brokers: [bootstrap],
      logLevel: logLevel.WARN,
      logCreator: stderrLogger,
      ...securityConfig(),
    })
    this.admin = null
    this.cluster = null
    this.producerCluster = null
    this.members = new Members(this.kafka)
    this.txns = new Map()
  }

  async getAdmin() {
    if (!this.admin) {
      const admin = this.kafka.admin()
      await admin.connect()
      this.admin = admin
    }
    return this.admin
  }

  /** kafkajs's own cluster object (the one its admin and consumer use internally). */
  async getCluster() {
    if (!this.cluster) {
      const create = Object.getOwnPropertySymbols(this.kafka).find(
        s => s.description === 'private:Kafka:createCluster'
      )
      const cluster = this.kafka[create]({ allowAutoTopicCreation: false })
      await cluster.connect()
      this.cluster = cluster
    }
    return this.cluster
  }

  /**
   * The topic's partition metadata as kafkajs's producer sees it: its Metadata requests allow
   * auto-creation (the producer's default), and a topic just created may take a few refreshes
   * before every partition has a leader.
   */
  async producerMetadata(topic) {
    if (!this.producerCluster) {
      const create = Object.getOwnPropertySymbols(this.kafka).find(
        s => s.description === 'private:Kafka:createCluster'
      )
      const cluster = this.kafka[create]({ allowAutoTopicCreation: true })
      await cluster.connect()
      this.producerCluster = cluster
    }
    const cluster = this.producerCluster
    const deadline = Date.now() + 10000
    for (;;) {
      try {
        await cluster.addTargetTopic(topic)
        await cluster.refreshMetadata()
        const meta = cluster.findTopicPartitionMetadata(topic)
        if (meta.length > 0 && meta.every(p => p.leader >= 0)) {
          return meta
        }
      } catch (err) {
        if (Date.now() >= deadline || !err.retriable) {
          throw err
        }
      }
      if (Date.now() >= deadline) {
        const err = new Error('no leader for every partition')
        err.type = 'LEADER_NOT_AVAILABLE'
        throw err
      }
      await new Promise(resolve => setTimeout(resolve, 100))
    }
  }

  async leaderFor(topic, partition) {
    const cluster = await this.getCluster()
    await cluster.addTargetTopic(topic)
    await cluster.refreshMetadata()
    const meta = cluster.findTopicPartitionMetadata(topic)
    const p = meta.find(m => m.partitionId === partition)
    if (!p) {
      const err = new Error('partition not in metadata')
      err.type = 'UNKNOWN_TOPIC_OR_PARTITION'
      throw err
    }
    return cluster.findBroker({ nodeId: p.leader })
  }

  async close() {
    await this.members.closeAll()
    await this.closeTxns()
    if (this.admin) {
      await this.admin.disconnect()
      this.admin = null
    }
    if (this.cluster) {
      await this.cluster.disconnect()
      this.cluster = null
    }
    if (this.producerCluster) {
      await this.producerCluster.disconnect()
      this.producerCluster = null
    }
  }

  async dispatch(step) {
    switch (step.op) {
      case 'create_topic':
        return this.createTopic(step)
      case 'describe_cluster': {
        const described = await (await this.getAdmin()).describeCluster()
        const brokers = described.brokers.map(b => b.nodeId).sort((a, b) => a - b)
        return { brokers, controller: described.controller }
      }
      case 'create_partitions':
        await (await this.getAdmin()).createPartitions({
          topicPartitions: [{ topic: step.topic, count: step.partitions }],
        })
        return {}
      case 'delete_topic':
        await (await this.getAdmin()).deleteTopics({ topics: [step.topic] })
        return {}
      case 'list_topics':
        return this.listTopics()
      case 'produce':
        return this.produce(step)
      case 'consume':
        return this.consume(step)
      case 'list_offsets':
        return this.listOffsets(step)
      case 'group_consume':
        return this.groupConsume(step)
      case 'committed':
        return this.committed(step)
      case 'describe_group':
        return this.describeGroup(step)
      case 'list_groups':
        return this.listGroups()
      case 'member_start':
        return this.members.start(step)
      case 'members_wait':
        return this.members.wait(step)
      case 'member_pause':
        return this.members.pause(step)
      case 'member_stop':
        return this.members.stop(step)
      case 'txn_produce':
        return this.txnProduce(step)
      case 'txn_end':
        return this.txnEnd(step)
      case 'txn_copy':
        return this.txnCopy(step)
      case 'close':
        await this.close()
        return {}
      default:
        throw new Unsupported(step.op)
    }
  }

  async createTopic(step) {
    const admin = await this.getAdmin()
    const configEntries = Object.entries(step.configs || {}).map(([name, value]) => ({
      name,
      value,
    }))
    // kafkajs resolves to false, instead of failing, when the broker answers TOPIC_ALREADY_EXISTS.
    const created = await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic: step.topic,
          numPartitions: step.partitions,
          replicationFactor: step.replication_factor == null ? 1 : step.replication_factor,
          configEntries,
        },
      ],
    })
    if (!created) {
      const err = new Error('topic already exists')
      err.type = 'TOPIC_ALREADY_EXISTS'
      throw err
    }
    return {}
  }

  async listTopics() {
    const admin = await this.getAdmin()
    const names = (await admin.listTopics()).filter(
      n => n !== '__consumer_offsets' && n !== '__transaction_state'
    )
    const topics = {}
    if (names.length > 0) {
      const { topics: metas } = await admin.fetchTopicMetadata({ topics: names })
      for (const t of metas) {
        topics[t.name] = t.partitions.length
      }
    }
    return { topics }
  }

  /**
   * One send() carries all records. Records without a partition are placed by kafkajs's default
   * partitioner before the send, so that each record's partition (and, from the partition's base
   * offset and the record's rank within it, its offset) is known.
   */
  async produce(step) {
    const compression = CODECS[step.compression || 'none']
    const acks = ACKS[step.acks == null ? 'all' : step.acks]
    if (compression === undefined || acks === undefined) {
      throw new Unsupported('compression or acks')
    }
    const messages = step.records.map(r => ({
      key: unb64(r.key),
      value: unb64(r.value),
      headers: headersObject(r.headers),
      partition: r.partition,
      timestamp: r.timestamp == null ? undefined : String(r.timestamp),
    }))
    const producer = this.kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: !!step.idempotent,
      maxInFlightRequests: step.idempotent ? 1 : undefined,
    })
    try {
      await producer.connect()
      if (messages.some(m => m.partition == null)) {
        const partitionMetadata = await this.producerMetadata(step.topic)
        const partitioner = Partitioners.DefaultPartitioner()
        for (const m of messages) {
          if (m.partition == null) {
            m.partition = partitioner({ topic: step.topic, partitionMetadata, message: m })
          }
        }
      }
      const meta = await producer.send({ topic: step.topic, messages, acks, compression })
      const base = new Map()
      for (const m of meta || []) {
        base.set(m.partition, m.baseOffset == null ? null : BigInt(m.baseOffset))
      }
      const rank = new Map()
      const results = messages.map(m => {
        const n = rank.get(m.partition) || 0
        rank.set(m.partition, n + 1)
        const b = base.get(m.partition)
        const offset = acks === 0 || b == null || b < 0n ? -1 : Number(b + BigInt(n))
        return { partition: m.partition, offset }
      })
      return { results }
    } catch (err) {
      if (err instanceof Unsupported || isNotImplemented(err)) {
        throw err
      }
      const name = errorName(err)
      return { results: messages.map(() => ({ error: name })) }
    } finally {
      await producer.disconnect().catch(() => {})
    }
  }

  async resolveOffset(broker, topic, partition, timestamp, isolationLevel) {
    const resp = await broker.listOffsets({
      replicaId: -1,
      isolationLevel,
      topics: [{ topic, partitions: [{ partition, timestamp }] }],
    })
    return resp.responses[0].partitions[0]
  }

  async consume(step) {
    const { topic, partition } = step
    const isolationLevel = step.isolation === 'read_committed' ? READ_COMMITTED : READ_UNCOMMITTED
    const maxRecords = step.max_records == null ? Infinity : step.max_records
    const deadline = Date.now() + (step.timeout_ms == null ? 5000 : step.timeout_ms)
    if (step.auto_offset_reset != null && step.auto_offset_reset !== 'none') {
      // Fetches go straight to the leader: an out-of-range offset is reported, never reset.
      throw new Unsupported('auto_offset_reset')
    }
    const broker = await this.leaderFor(topic, partition)
    let offset
    if (typeof step.offset === 'number') {
      offset = BigInt(step.offset)
    } else if (step.offset === 'latest' || step.offset === 'earliest') {
      const ts = step.offset === 'latest' ? -1 : -2
      offset = BigInt((await this.resolveOffset(broker, topic, partition, ts, isolationLevel)).offset)
    } else {
      throw new Unsupported('offset')
    }
    const records = []
    while (records.length < maxRecords) {
      const left = deadline - Date.now()
      if (left <= 0) {
        break
      }
      const resp = await broker.fetch({
        replicaId: -1,
        isolationLevel,
        maxWaitTime: Math.min(left, 500),
        minBytes: 1,
        maxBytes: 52428800,
        topics: [{ topic, partitions: [{ partition, fetchOffset: offset.toString(), maxBytes: 1048576 }] }],
      })
      const data = resp.responses[0].partitions[0]
      const batch = new Batch(topic, offset.toString(), data)
      for (const m of batch.messages) {
        if (records.length >= maxRecords) {
          break
        }
        records.push({
          partition,
          offset: Number(m.offset),
          key: b64(m.key),
          value: b64(m.value),
          headers: headersList(m.headers),
          timestamp: Number(m.timestamp),
        })
      }
      if (!batch.isEmptyIncludingFiltered()) {
        const last = BigInt(batch.messagesWithinOffset[batch.messagesWithinOffset.length - 1].offset)
        offset = last + 1n
      }
    }
    return { records }
  }

  async listOffsets(step) {
    let timestamp
    if (step.spec === 'earliest') {
      timestamp = -2
    } else if (step.spec === 'latest') {
      timestamp = -1
    } else if (step.spec && typeof step.spec === 'object' && step.spec.timestamp != null) {
      timestamp = step.spec.timestamp
    } else {
      throw new Unsupported('spec')
    }
    const broker = await this.leaderFor(step.topic, step.partition)
    const p = await this.resolveOffset(broker, step.topic, step.partition, timestamp, READ_UNCOMMITTED)
    const ts = p.timestamp == null ? -1 : Number(p.timestamp)
    return { offset: Number(p.offset), timestamp: ts < 0 ? null : ts }
  }
}

Object.assign(Driver.prototype, groupSteps, txnSteps)

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n')
}

async function main() {
  const driver = new Driver(parseArgs(process.argv.slice(2)))
  emit({ ready: true, client: `kafkajs ${kafkajsVersion}` })
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of rl) {
    if (!line.trim()) {
      continue
    }
    let step
    try {
      step = JSON.parse(line)
    } catch (err) {
      emit({ step: null, ok: false, error: 'CLIENT_ERROR:bad step: ' + err.message })
      continue
    }
    let reply
    try {
      reply = { step: step.id, ok: true, ...(await driver.dispatch(step)) }
    } catch (err) {
      if (err instanceof Unsupported || isNotImplemented(err)) {
        reply = { step: step.id, ok: false, unsupported: true }
      } else if (err instanceof StepFailed) {
        reply = { step: step.id, ok: false, error: err.errorName, ...err.fields }
      } else {
        reply = { step: step.id, ok: false, error: errorName(err) }
      }
    }
    emit(reply)
    if (step.op === 'close') {
      break
    }
  }
  await driver.close().catch(() => {})
  process.exit(0)
}

main().catch(err => {
  process.stderr.write(`driver failed: ${err && err.stack ? err.stack : err}\n`)
  process.exit(1)
})
