// Quits an app by name. Input: {"name": "TextEdit"}.
// Output: {"quit": true}, {"quit": false} when it was not running, or {"problem": "not_found"}.
function run(argv) {
  var input = JSON.parse(argv[0]);
  return onNamedApp(input, function (app) {
    if (!app.running()) {
      return JSON.stringify({ quit: false });
    }
    app.quit();
    return JSON.stringify({ quit: true });
  });
}
