// Test script: answers with `size` characters.
function run(argv) {
  var input = JSON.parse(argv[0]);
  return JSON.stringify({ text: new Array(input.size + 1).join("x") });
}
