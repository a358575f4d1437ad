// Test stand-in for a worker that starts but never says it is ready.
function run(argv) {
  delay(600);
}
