// Test script: never answers.
function run(argv) {
  delay(600);
  return "{}";
}
