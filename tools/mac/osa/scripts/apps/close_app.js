// Quits an app by name, then waits (up to wait_ms) to see it gone.
// Input: {"name": "TextEdit", "wait_ms": 3000}.
// Output: {"quit": true, "running": whether it still runs afterwards}, {"quit": false} when it
// was not running, or {"problem": "not_found"}.
function run(argv) {
  var input = JSON.parse(argv[0]);
  return onNamedApp(input, function (app) {
    if (!app.running()) {
      return JSON.stringify({ quit: false });
    }
    app.quit();
    var waited = 0;
    while (app.running() && waited < input.wait_ms) {
      delay(0.1);
      waited += 100;
    }
    return JSON.stringify({ quit: true, running: app.running() });
  });
}
