export const meta = {
  name: 'bench-fanout',
  description: 'benchmark-skill fan-out: one fresh subagent per planned task',
  whenToUse: 'Only from the benchmark-skill protocol, with the script path that benchcore plan or collect printed.',
  phases: [
    { title: 'Arms', detail: 'one fresh subagent per case x trial x arm, with the exact planned prompt' },
    { title: 'Judges', detail: 'one fresh blind judge per packet; answers through the schema, carrying the packet id' },
  ],
}

// The input is {phase: 'Arms' | 'Judges', tasks: [{id, prompt, hole?, agentType?, model?, judge?, cost?}],
// texts?, schema?, ceilings?}. A prompt is a string, or a list of pieces joined in order: a string
// is itself, a number n is texts[n], a pair [a, b] is texts[a] .. texts[b] (each text a list of
// strings, joined): a line several prompts share is written once, and no line of this file is long
// (Claude Code's approval dialog refuses a script with long lines). A task's cost is {pool, group, raw, usd, output}: its estimated raw tokens,
// dollars and output tokens; ceilings is {pool: {raw_tokens?, usd?, spent_raw, spent_usd, stopped?}}.
// benchcore writes a bound copy of this file into the run directory with BOUND set to that
// object, so the Workflow call needs only {scriptPath}; this file also runs with the same
// object passed as args. Plain JavaScript: no clock, no randomness, no file access.
const BOUND = null

const input = BOUND || args
if (!input || !Array.isArray(input.tasks)) {
  throw new Error('bench-fanout: expected {phase, tasks: [...]} (run the bound script benchcore printed)')
}
const texts = (input.texts || []).map((t) => t.join(''))
const piece = (p) => (typeof p === 'number' ? texts[p]
  : Array.isArray(p) ? texts.slice(p[0], p[1] + 1).join('') : p)
// A task's hole (an arm's world, a packet's id) stands as \u0001 in its bound prompt, so the lines
// naming it are the same for every task and bound once.
const promptOf = (task) => {
  const text = Array.isArray(task.prompt) ? task.prompt.map(piece).join('') : task.prompt
  return task.hole ? text.split('\u0001').join(task.hole) : text
}
const title = input.phase === 'Judges' ? 'Judges' : 'Arms'
phase(title)
log(`${title}: ${input.tasks.length} fresh subagents`)

// The budget, checked before each launch. Our own counting: the first task of a group (the cells of
// one trial) reserves the group's estimated cost against its pool's ceiling; the first group that
// would pass the ceiling stops that pool, so it and every later group are not launched (benchcore
// makes the same decision with the same numbers, so collect knows what was left out). And the
// session's token target: once budget.remaining() (output tokens) is below a group's estimated
// output, nothing more is launched (agent() would throw anyway).
const ceilings = input.ceilings || {}
const groupCost = {}
const reserved = {}
const stopped = {}
const decided = {}
for (const task of input.tasks) {
  const c = task.cost
  if (!c) continue
  const key = c.pool + '\u0000' + c.group
  const g = groupCost[key] || (groupCost[key] = { raw: 0, usd: 0, output: 0 })
  g.raw += c.raw || 0
  g.usd += c.usd || 0
  g.output += c.output || 0
}
for (const pool of Object.keys(ceilings)) {
  reserved[pool] = { raw: ceilings[pool].spent_raw || 0, usd: ceilings[pool].spent_usd || 0 }
  if (ceilings[pool].stopped) stopped[pool] = 'budget reached'
}
const sessionTarget = typeof budget === 'object' && budget !== null && budget.total != null
const notLaunched = []
const reasons = {}

const mayLaunch = (task) => {
  const c = task.cost
  const key = c ? c.pool + '\u0000' + c.group : '\u0000' + task.id
  if (key in decided) return decided[key]
  let why = null
  const ceil = c ? ceilings[c.pool] : undefined
  if (ceil) {
    const g = groupCost[key]
    const r = reserved[c.pool]
    if (stopped[c.pool]) why = stopped[c.pool]
    else if ((ceil.raw_tokens != null && r.raw + g.raw > ceil.raw_tokens) || (ceil.usd != null && r.usd + g.usd > ceil.usd)) why = 'budget reached'
    else reserved[c.pool] = { raw: r.raw + g.raw, usd: r.usd + g.usd }
  }
  if (!why && sessionTarget) {
    const need = c ? Math.max(1, groupCost[key].output) : 1
    if (budget.remaining() < need) why = "the session's token target was reached"
  }
  if (why && c) stopped[c.pool] = stopped[c.pool] || why
  decided[key] = !why
  if (why) reasons[why] = (reasons[why] || 0) + 1
  return !why
}

const launch = agent
const runOne = (task) => {
  if (!mayLaunch(task)) {
    notLaunched.push(task.id)
    return Promise.resolve(undefined)
  }
  const opts = { label: task.id, phase: title }
  if (task.agentType) opts.agentType = task.agentType
  if (task.model) opts.model = task.model
  // A judge answers through the schema; the packet id inside the answer ties it to its
  // packet, because workflow journals carry no labels.
  if (task.judge && input.schema) opts.schema = input.schema
  // Called through a name of its own: the approval dialog lists each agent() call's prompt as written,
  // which here would be the code "promptOf(task)"; the bound meta says what runs instead.
  return launch(promptOf(task), opts)
}

const results = await parallel(input.tasks.map((task) => () => runOne(task)))
const failed = input.tasks.filter((task, i) => results[i] === null).map((task) => task.id)
const launched = input.tasks.length - notLaunched.length
log(`${title}: ${launched - failed.length} finished, ${failed.length} failed`)
// The completion notification already names the phase; an empty list is left out (the session reads this).
const out = { launched, finished: launched - failed.length }
if (failed.length) out.failed = failed.slice(0, 20)
if (notLaunched.length) {
  log(`${title}: ${notLaunched.length} not launched (${Object.keys(reasons).join('; ')})`)
  out.not_launched = notLaunched.length
  out.stopped = Object.keys(reasons).join('; ')
}

// Kept small on purpose: benchcore collect reads every answer from the transcripts.
return out
