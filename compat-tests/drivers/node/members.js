'use strict'
/**
 * Long-lived group members for the kafkajs driver: member_start, members_wait, member_pause and
 * member_stop (compat-tests/PROTOCOL.md). Each member is one kafkajs consumer running in the
 * background; the step loop reads what its instrumentation events reported.
 *
 * - assignment: the memberAssignment of the consumer's latest GROUP_JOIN event (kafkajs emits one
 *   per completed join and sync), emptied on a REBALANCING event (kafkajs rebalances eagerly: a
 *   member that rejoins gives up everything it held). rebalances counts GROUP_JOIN events;
 *   member_id is that event's memberId: kafkajs restarts a consumer whose coordinator stayed away
 *   for a few seconds, and the restarted consumer joins with a new member id (on either broker).
 * - assignors: kafkajs ships only its round-robin assigner (protocol name "RoundRobinAssigner");
 *   `range` is an assigner of this driver's own, given to kafkajs through its custom-assigner API
 *   (protocol name "range", the algorithm of Kafka's RangeAssignor without racks). sticky and
 *   cooperative-sticky are unsupported.
 * - group_instance_id: kafkajs's consumer has no static membership (unsupported).
 * - max_poll_interval_ms: kafkajs has no max.poll.interval (unsupported); its rebalanceTimeout is
 *   only the JoinGroup field, and nothing makes a kafkajs member leave when it stops consuming.
 * - member_pause is unsupported: kafkajs has no poll call. Its runner fetches and heartbeats by
 *   itself (heartbeats are sent from the fetch loop, there is no heartbeat thread), and an
 *   application can stall it only from inside eachBatch/eachMessage, which kafkajs calls only for
 *   records, so a member of an idle topic cannot be paused, and a stalled one would miss its
 *   session timeout rather than a poll interval.
 * - auto_offset_reset: earliest or latest (kafkajs's fromBeginning); none is unsupported.
 */
const {
  AssignerProtocol: { MemberMetadata, MemberAssignment },
  PartitionAssigners,
} = require('kafkajs')
const { Unsupported, StepFailed, pairsOf, sortMembers } = require('./common')

const SETTLE_MS = 500
/**
 * kafkajs's default (5 retries, about 10 s in all) gives up for good ("Failed to find group
 * coordinator", no restart) while Apache Kafka restarts and reloads its groups; a member must
 * outlive a broker restart, as an application configured for one would.
 */
const MEMBER_RETRY = { retries: 10 }
const CHECK_MS = 50

/**
 * Kafka's RangeAssignor as a kafkajs assigner: for each topic, the members subscribed to it,
 * sorted by member id, take consecutive ranges of its partitions; the first (partitions mod
 * members) take one partition more.
 */
const RangeAssigner = ({ cluster }) => ({
  name: 'range',
  version: 0,
  async assign({ members, topics }) {
    const assignment = {}
    for (const { memberId } of members) {
      assignment[memberId] = {}
    }
    for (const topic of topics) {
      const subscribed = members
        .filter(m => MemberMetadata.decode(m.memberMetadata).topics.includes(topic))
        .map(m => m.memberId)
        .sort()
      const partitions = cluster
        .findTopicPartitionMetadata(topic)
        .map(p => p.partitionId)
        .sort((a, b) => a - b)
      const per = Math.floor(partitions.length / subscribed.length)
      const extra = partitions.length % subscribed.length
      subscribed.forEach((memberId, i) => {
        const start = i * per + Math.min(i, extra)
        assignment[memberId][topic] = partitions.slice(start, start + per + (i < extra ? 1 : 0))
      })
    }
    return Object.entries(assignment).map(([memberId, a]) => ({
      memberId,
      memberAssignment: MemberAssignment.encode({ version: this.version, assignment: a }),
    }))
  },
  protocol({ topics }) {
    return { name: this.name, metadata: MemberMetadata.encode({ version: this.version, topics }) }
  },
})

const ASSIGNERS = { range: RangeAssigner, roundrobin: PartitionAssigners.roundRobin }

/** True when every assignment is non-empty, none overlaps, and `want` partitions of topic are held. */
function settled(assignments, topic, want) {
  const seen = new Set()
  for (const a of assignments) {
    if (a.length === 0) {
      return false
    }
    for (const [t, p] of a) {
      if (t !== topic) {
        continue
      }
      if (seen.has(p)) {
        return false
      }
      seen.add(p)
    }
  }
  return seen.size === want
}

class Members {
  constructor(kafka) {
    this.kafka = kafka
    /** name -> {consumer, assignment, rebalances, started}; started settles once run() returned. */
    this.members = new Map()
  }

  get(name) {
    const m = this.members.get(name)
    if (!m) {
      throw new Error(`no member ${name}`)
    }
    return m
  }

  /** Creates the consumer and starts it in the background; replies before it has joined. */
  async start(step) {
    const name = step.member
    if (this.members.has(name)) {
      throw new Error(`member ${name} already running`)
    }
    const assigner = ASSIGNERS[step.assignor || 'range']
    const reset = step.auto_offset_reset || 'earliest'
    if (
      !assigner ||
      step.group_instance_id != null ||
      step.max_poll_interval_ms != null ||
      (reset !== 'earliest' && reset !== 'latest')
    ) {
      throw new Unsupported('assignor, group_instance_id, max_poll_interval_ms or auto_offset_reset')
    }
    const options = {
      groupId: step.group,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 200,
      retry: MEMBER_RETRY,
      partitionAssigners: [assigner],
    }
    if (step.session_timeout_ms != null) {
      options.sessionTimeout = step.session_timeout_ms
    }
    if (step.heartbeat_interval_ms != null) {
      options.heartbeatInterval = step.heartbeat_interval_ms
    }
    const consumer = this.kafka.consumer(options)
    const m = { consumer, assignment: [], rebalances: 0, memberId: null, started: null }
    consumer.on(consumer.events.GROUP_JOIN, e => {
      m.assignment = pairsOf(e.payload.memberAssignment)
      m.rebalances += 1
      m.memberId = e.payload.memberId
    })
    consumer.on(consumer.events.REBALANCING, () => {
      m.assignment = []
    })
    consumer.on(consumer.events.CRASH, e => {
      process.stderr.write(`member ${name} crashed (restart: ${e.payload.restart}): ${e.payload.error}\n`)
    })
    m.started = (async () => {
      await consumer.connect()
      await consumer.subscribe({ topics: [step.topic], fromBeginning: reset === 'earliest' })
      await consumer.run({ autoCommit: false, eachBatch: async () => {} })
    })().catch(err => {
      process.stderr.write(`member ${name} failed to start: ${err && err.stack ? err.stack : err}\n`)
    })
    this.members.set(name, m)
    return {}
  }

  pause(step) {
    this.get(step.member)
    throw new Unsupported('kafkajs has no poll call to withhold')
  }

  /** Disconnects the consumer: kafkajs stops its runner and sends LeaveGroup. */
  async stop(step) {
    const m = this.get(step.member)
    this.members.delete(step.member)
    await m.started
    await m.consumer.disconnect()
    return {}
  }

  async closeAll() {
    const running = [...this.members.values()]
    this.members.clear()
    await Promise.all(
      running.map(async m => {
        await m.started
        await m.consumer.disconnect().catch(() => {})
      })
    )
  }

  /** Waits until the named members' assignments have been settled, unchanged, for SETTLE_MS. */
  async wait(step) {
    const names = step.members || []
    const watched = names.map(name => this.get(name))
    const deadline = Date.now() + (step.timeout_ms == null ? 30000 : step.timeout_ms)
    let since = null
    let last = null
    for (;;) {
      const now = watched.map(m => m.assignment)
      const key = JSON.stringify(now)
      const t = Date.now()
      if (settled(now, step.topic, step.partitions)) {
        if (since === null || key !== last) {
          since = t
        }
        if (t - since >= SETTLE_MS) {
          return report(names, watched, now)
        }
      } else {
        since = null
      }
      last = key
      if (t >= deadline) {
        throw new StepFailed('CLIENT_ERROR:TimeoutException', report(names, watched, now))
      }
      await new Promise(resolve => setTimeout(resolve, CHECK_MS))
    }
  }
}

function report(names, watched, now) {
  const byMember = {}
  names.forEach((name, i) => {
    byMember[name] = { assignment: now[i], rebalances: watched[i].rebalances, member_id: watched[i].memberId }
  })
  return { members: sortMembers(now.map(assignment => ({ assignment }))), by_member: byMember }
}

module.exports = { Members }
