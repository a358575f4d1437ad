// Quits an app by name. Input: {"name": "TextEdit"}.
// Output: {"quit": true}, {"quit": false} when it was not running, or {"problem": "not_found"}.
function run(argv) {
  var input = JSON.parse(argv[0]);
  var app;
  try {
    app = Application(input.name);
  } catch (error) {
    return JSON.stringify({ problem: "not_found" });
  }
  if (!app.running()) {
    return JSON.stringify({ quit: false });
  }
  app.quit();
  return JSON.stringify({ quit: true });
}
