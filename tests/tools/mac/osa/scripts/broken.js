// Test script with a syntax error on purpose.
function run(argv) {
  return JSON.stringify({ oops: true };
}
