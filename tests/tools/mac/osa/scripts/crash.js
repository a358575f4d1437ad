// Test script: the process exits in the middle of the call, as a crash would.
ObjC.import("stdlib");

function run(argv) {
  $.exit(3);
}
