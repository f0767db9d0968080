'use strict'
/**
 * Transactional steps of the kafkajs driver: txn_produce, txn_end and txn_copy
 * (compat-tests/PROTOCOL.md).
 *
 * A named producer is a kafkajs producer with a transactionalId (idempotent, one request in
 * flight), connected on its name's first step; kafkajs initialises the producer id with its first
 * transaction(). Offsets reach a transaction with sendOffsets and the consumer group id (kafkajs
 * speaks transactions v1: AddPartitionsToTxn and AddOffsetsToTxn).
 */
const { Unsupported } = require('./common')

const unb64 = s => (s == null ? null : Buffer.from(s, 'base64'))

function offsetsOf(topic, meta, messages) {
  const base = new Map()
  for (const m of meta || []) {
    base.set(m.partition, m.baseOffset == null ? null : BigInt(m.baseOffset))
  }
  const rank = new Map()
  return messages.map(m => {
    const n = rank.get(m.partition) || 0
    rank.set(m.partition, n + 1)
    const b = base.get(m.partition)
    return { partition: m.partition, offset: b == null || b < 0n ? -1 : Number(b + BigInt(n)) }
  })
}

/** The transactional steps, installed as Driver methods (they use this.kafka and this.txns). */
const txnSteps = {
  async txnProducer(step) {
    let entry = this.txns.get(step.producer)
    if (!entry) {
      const producer = this.kafka.producer({
        transactionalId: step.transactional_id,
        idempotent: true,
        maxInFlightRequests: 1,
        ...(step.transaction_timeout_ms == null ? {} : { transactionTimeout: step.transaction_timeout_ms }),
      })
      await producer.connect()
      entry = { producer, open: null }
      this.txns.set(step.producer, entry)
    }
    return entry
  },

  async txnBegin(entry) {
    if (!entry.open) {
      entry.open = await entry.producer.transaction()
    }
    return entry.open
  },

  async txnFinish(entry, commit) {
    const txn = entry.open
    entry.open = null
    if (!txn) {
      throw new Error('no transaction is open')
    }
    if (commit) {
      await txn.commit()
    } else {
      await txn.abort()
    }
  },

  async txnProduce(step) {
    if (step.records.some(r => r.partition == null)) {
      throw new Unsupported('records without a partition')
    }
    const entry = await this.txnProducer(step)
    const txn = await this.txnBegin(entry)
    const messages = step.records.map(r => ({ key: unb64(r.key), value: unb64(r.value), partition: r.partition }))
    const meta = await txn.send({ topic: step.topic, messages, acks: -1 })
    const results = offsetsOf(step.topic, meta, messages)
    if (step.end !== 'open') {
      await this.txnFinish(entry, step.end !== 'abort')
    }
    return { results }
  },

  async txnEnd(step) {
    const entry = this.txns.get(step.producer)
    await this.txnFinish(entry, !!step.commit)
    return {}
  },

  async txnCopy(step) {
    const entry = await this.txnProducer(step)
    const consumer = this.kafka.consumer({ groupId: step.group, allowAutoTopicCreation: false, maxWaitTimeInMs: 500 })
    const kept = []
    let failure = null
    try {
      await consumer.connect()
      consumer.on(consumer.events.CRASH, e => {
        failure = e.payload.error
      })
      await consumer.subscribe({ topics: [step.input], fromBeginning: true })
      let done
      const finished = new Promise(resolve => {
        done = resolve
      })
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          if (kept.length < step.max_records) {
            kept.push({ partition, message })
          }
          if (kept.length >= step.max_records) {
            done()
          }
        },
      })
      const timer = setTimeout(done, step.timeout_ms)
      await finished
      clearTimeout(timer)
      await consumer.stop()
      if (failure) {
        throw failure
      }
      if (kept.length === 0) {
        return { copied: 0 }
      }
      const txn = await this.txnBegin(entry)
      const messages = kept.map(({ partition, message: m }) => ({ key: m.key, value: m.value, partition }))
      await txn.send({ topic: step.output, messages, acks: -1 })
      const next = new Map()
      for (const { partition, message } of kept) {
        next.set(partition, (BigInt(message.offset) + 1n).toString())
      }
      const partitions = [...next.entries()].sort((a, b) => a[0] - b[0]).map(([partition, offset]) => ({ partition, offset }))
      await txn.sendOffsets({ consumerGroupId: step.group, topics: [{ topic: step.input, partitions }] })
      await this.txnFinish(entry, true)
      return { copied: kept.length }
    } finally {
      await consumer.disconnect().catch(() => {})
    }
  },

  async closeTxns() {
    for (const { producer } of this.txns.values()) {
      await producer.disconnect().catch(() => {})
    }
    this.txns.clear()
  },
}

module.exports = { txnSteps }
