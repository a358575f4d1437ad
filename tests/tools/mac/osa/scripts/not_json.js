// Test script: answers with text that is not JSON.
function run(argv) {
  return "hello";
}
