// Opens a URL in a new tab of the front window and makes it current.
// Input: {"browser": "safari" | "chrome", "url": "https://..."} (already checked by Deskhand).
// Output: {"opened": true, "before": tabs in the front window before, "after": tabs there
// afterwards, "current": the URL of its current tab afterwards} or {"problem": "no_window"}.
function run(argv) {
  var input = JSON.parse(argv[0]);
  var safari = input.browser === "safari";
  var app = Application(safari ? "Safari" : "Google Chrome");
  app.activate();
  if (app.windows.length === 0) {
    return JSON.stringify({ problem: "no_window" });
  }
  var win = app.windows[0];
  var before = win.tabs.length;
  var tab = app.Tab({ url: input.url });
  win.tabs.push(tab);
  var after = win.tabs.length;
  if (after > before) {
    if (safari) {
      win.currentTab = win.tabs[after - 1];
    } else {
      win.activeTabIndex = after;
    }
  }
  var current = safari ? win.currentTab : win.tabs[win.activeTabIndex() - 1];
  // A new tab may not report its address until it starts loading: look for up to a second.
  var url = current.url();
  for (var waited = 0; after > before && !url && waited < 1000; waited += 100) {
    delay(0.1);
    url = current.url();
  }
  return JSON.stringify({ opened: true, before: before, after: after, current: url });
}
