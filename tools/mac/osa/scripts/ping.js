// The trivial action: answers at once without touching any app. Used by the benchmark and to
// check that scripting works at all. Input: any JSON object; output: {"pong": <that object>}.
function run(argv) {
  var input = JSON.parse(argv[0]);
  return JSON.stringify({ pong: input });
}
