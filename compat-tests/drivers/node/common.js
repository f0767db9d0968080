'use strict'
/** Pieces the kafkajs driver's modules share: step outcomes, record headers, assignment pairs. */

const b64 = buf => (buf == null ? null : Buffer.from(buf).toString('base64'))

/** kafkajs's headers object ({name: value or [values]}) as [name, base64 value] pairs. */
function headersList(obj) {
  const out = []
  for (const name of Object.keys(obj || {})) {
    const v = obj[name]
    for (const item of Array.isArray(v) ? v : [v]) {
      out.push([name, b64(item)])
    }
  }
  return out
}

/** Thrown for a step this client cannot perform. */
class Unsupported extends Error {}

/** A failed step whose reply carries fields besides `error` (members_wait's last state). */
class StepFailed extends Error {
  constructor(errorName, fields) {
    super(errorName)
    this.errorName = errorName
    this.fields = fields
  }
}

const sortPairs = pairs =>
  pairs.sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? -1 : 1))

/** [topic, partition] pairs of kafkajs's decoded assignment ({topic: [partitions]}). */
function pairsOf(assignment) {
  const pairs = []
  for (const [topic, partitions] of Object.entries(assignment || {})) {
    for (const p of partitions) {
      pairs.push([topic, p])
    }
  }
  return sortPairs(pairs)
}

/** Members ({assignment}) ordered by assignment, so that brokers' answers compare. */
const sortMembers = members =>
  members.sort((a, b) => (JSON.stringify(a.assignment) < JSON.stringify(b.assignment) ? -1 : 1))

module.exports = { Unsupported, StepFailed, b64, headersList, sortPairs, pairsOf, sortMembers }
