// Test script: starts a background child (like a shell command would), writes its own pid and
// the child's to `pidfile`, then hangs: a timeout must kill both.
function run(argv) {
  var input = JSON.parse(argv[0]);
  var app = Application.currentApplication();
  app.includeStandardAdditions = true;
  var child = app.doShellScript("sleep 300 >/dev/null 2>&1 & echo $!");
  var pids = $.NSProcessInfo.processInfo.processIdentifier + " " + child;
  $(pids).writeToFileAtomicallyEncodingError(input.pidfile, true, $.NSUTF8StringEncoding, null);
  delay(600);
  return "{}";
}
