// Test stand-in for a worker that cannot start: it exits at once without a greeting.
function run(argv) {
  return "";
}
