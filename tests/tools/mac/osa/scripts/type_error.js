// Test script: a plain JavaScript error at run time (no Apple Event number).
function run(argv) {
  var nothing = null;
  return nothing.length;
}
