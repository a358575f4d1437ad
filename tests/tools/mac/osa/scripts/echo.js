// Test script: answers with its input.
function run(argv) {
  return JSON.stringify({ echo: JSON.parse(argv[0]) });
}
