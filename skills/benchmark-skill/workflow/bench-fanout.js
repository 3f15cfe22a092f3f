export const meta = {
  name: 'bench-fanout',
  description: 'benchmark-skill: run every planned arm cell, or every judge packet, as one fresh subagent',
  whenToUse: 'Only from the benchmark-skill protocol, with the script path that benchcore plan or collect printed.',
  phases: [
    { title: 'Arms', detail: 'one fresh subagent per case x trial x arm, with the exact planned prompt' },
    { title: 'Judges', detail: 'one fresh blind judge per packet; answers through the schema, carrying the packet id' },
  ],
}

// The input is {phase: 'Arms' | 'Judges', tasks: [{id, prompt, agentType?, judge?}], schema?}.
// benchcore writes a bound copy of this file into the run directory with BOUND set to that
// object, so the Workflow call needs only {scriptPath}; this file also runs with the same
// object passed as args. Plain JavaScript: no clock, no randomness, no file access.
const BOUND = null

const input = BOUND || args
if (!input || !Array.isArray(input.tasks)) {
  throw new Error('bench-fanout: expected {phase, tasks: [...]} (run the bound script benchcore printed)')
}
const title = input.phase === 'Judges' ? 'Judges' : 'Arms'
phase(title)
log(`${title}: ${input.tasks.length} fresh subagents`)

const runOne = (task) => {
  const opts = { label: task.id, phase: title }
  if (task.agentType) opts.agentType = task.agentType
  // A judge answers through the schema; the packet id inside the answer ties it to its
  // packet, because workflow journals carry no labels.
  if (task.judge && input.schema) opts.schema = input.schema
  return agent(task.prompt, opts)
}

const results = await parallel(input.tasks.map((task) => () => runOne(task)))
const failed = input.tasks.filter((task, i) => results[i] === null).map((task) => task.id)
log(`${title}: ${input.tasks.length - failed.length} finished, ${failed.length} failed`)

// Kept small on purpose: benchcore collect reads every answer from the transcripts.
return { phase: title, launched: input.tasks.length, finished: input.tasks.length - failed.length, failed: failed.slice(0, 20) }
