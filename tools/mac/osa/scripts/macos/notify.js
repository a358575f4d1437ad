// Shows a notification. Input: {"title": "...", "subtitle": "..." or null, "text": "..."}.
// Output: {"shown": true}.
function run(argv) {
  var input = JSON.parse(argv[0]);
  var app = Application.currentApplication();
  app.includeStandardAdditions = true;
  var options = { withTitle: input.title };
  if (input.subtitle) {
    options.subtitle = input.subtitle;
  }
  app.displayNotification(input.text, options);
  return JSON.stringify({ shown: true });
}
