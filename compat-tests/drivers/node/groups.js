'use strict'
/**
 * Consumer-group steps of the kafkajs driver: group_consume, committed, describe_group and
 * list_groups (compat-tests/PROTOCOL.md).
 */
const { AssignerProtocol } = require('kafkajs')
const { Unsupported, b64, headersList, pairsOf, sortMembers } = require('./common')

const GROUP_STATES = {
  Empty: 'Empty',
  Stable: 'Stable',
  Dead: 'Dead',
  PreparingRebalance: 'PreparingRebalance',
  CompletingRebalance: 'CompletingRebalance',
}

/** The group steps, installed as Driver methods (they use this.kafka and this.getAdmin()). */
const groupSteps = {
  /**
   * A kafkajs group consumer (it has only the round-robin assignor and no auto.offset.reset=none)
   * with auto commit off; it stops once max_records are kept or timeout_ms passed.
   */
  async groupConsume(step) {
    const reset = step.auto_offset_reset || 'earliest'
    if ((step.assignor && step.assignor !== 'roundrobin') || (reset !== 'earliest' && reset !== 'latest')) {
      throw new Unsupported('assignor or auto_offset_reset')
    }
    const maxRecords = step.max_records == null ? Infinity : step.max_records
    const consumer = this.kafka.consumer({ groupId: step.group, allowAutoTopicCreation: false, maxWaitTimeInMs: 500 })
    const kept = []
    let assignment = []
    let failure = null
    try {
      await consumer.connect()
      consumer.on(consumer.events.GROUP_JOIN, e => {
        assignment = pairsOf(e.payload.memberAssignment)
      })
      consumer.on(consumer.events.CRASH, e => {
        failure = e.payload.error
      })
      await consumer.subscribe({ topics: [step.topic], fromBeginning: reset === 'earliest' })
      let done
      const finished = new Promise(resolve => {
        done = resolve
      })
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ topic, partition, message }) => {
          if (kept.length < maxRecords) {
            kept.push({ topic, partition, message })
          }
          if (kept.length >= maxRecords) {
            done()
          }
        },
      })
      const timer = setTimeout(done, step.timeout_ms == null ? 5000 : step.timeout_ms)
      await finished
      clearTimeout(timer)
      if (failure) {
        throw failure
      }
      if (step.commit && kept.length > 0) {
        const next = new Map()
        for (const { topic, partition, message } of kept) {
          const key = `${topic}\u0000${partition}`
          const offset = BigInt(message.offset) + 1n
          if (!next.has(key) || next.get(key).offset < offset) {
            next.set(key, { topic, partition, offset })
          }
        }
        await consumer.commitOffsets(
          [...next.values()].map(({ topic, partition, offset }) => ({ topic, partition, offset: offset.toString() }))
        )
      }
    } finally {
      await consumer.disconnect().catch(() => {})
    }
    const records = kept.map(({ partition, message: m }) => ({
      partition,
      offset: Number(m.offset),
      key: b64(m.key),
      value: b64(m.value),
      headers: headersList(m.headers),
      timestamp: Number(m.timestamp),
    }))
    records.sort((a, b) => a.partition - b.partition || a.offset - b.offset)
    return { records, assignment }
  },

  async committed(step) {
    const admin = await this.getAdmin()
    const topics = await admin.fetchOffsets({ groupId: step.group, topics: [step.topic] })
    const byPartition = new Map()
    for (const t of topics) {
      for (const p of t.partitions) {
        byPartition.set(p.partition, Number(p.offset))
      }
    }
    const offsets = step.partitions.map(p => {
      const o = byPartition.has(p) ? byPartition.get(p) : -1
      return { partition: p, offset: o < 0 ? -1 : o }
    })
    return { offsets }
  },

  async describeGroup(step) {
    const admin = await this.getAdmin()
    const { groups } = await admin.describeGroups([step.group])
    const g = groups[0]
    if (g.errorCode) {
      const err = new Error(`DescribeGroups error ${g.errorCode}`)
      err.type = g.errorCode
      throw err
    }
    const members = g.members.map(m => {
      const decoded = m.memberAssignment && m.memberAssignment.length > 0
        ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment)
        : null
      return { assignment: pairsOf(decoded ? decoded.assignment : {}) }
    })
    sortMembers(members)
    return {
      state: GROUP_STATES[g.state] || g.state,
      protocol_type: g.protocolType,
      protocol: g.protocol,
      members,
    }
  },

  async listGroups() {
    const admin = await this.getAdmin()
    const { groups } = await admin.listGroups()
    const out = groups.map(g => ({ group: g.groupId, protocol_type: g.protocolType }))
    out.sort((a, b) => (a.group < b.group ? -1 : 1))
    return { groups: out }
  },
}

module.exports = { groupSteps }
