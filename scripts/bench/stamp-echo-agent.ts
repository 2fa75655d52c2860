// The agent of the proxy's latency bench (proxy-latency.ts): it echoes every line it reads,
// with two readings of the system's monotonic clock added as the line's last members — when the
// line was read (`t1`) and when its echo was written (`t2`). The client stamps its own write
// (t0) and read (t3) on the same clock (process.hrtime is CLOCK_MONOTONIC, one clock for every
// process on the machine), so each message's trip is timed one way, client → agent and agent →
// client, with and without the proxy between them.
let pending = '';

process.stdin.setEncoding('latin1').on('data', (chunk: string) => {
  const read = process.hrtime.bigint();
  pending += chunk;
  let out = '';
  for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
    // Every line is one JSON object: its closing brace is dropped and the stamps go before it.
    const line = pending.slice(0, nl).trimEnd();
    pending = pending.slice(nl + 1);
    out += `${line.slice(0, -1)},"t1":"${read}","t2":"${process.hrtime.bigint()}"}\n`;
  }
  if (out) process.stdout.write(out);
});
