// Opens a URL in a new tab of the front window and makes it current.
// Input: {"browser": "safari" | "chrome", "url": "https://..."} (already checked by Deskhand).
// Output: {"opened": true} or {"problem": "no_window"}.
function run(argv) {
  var input = JSON.parse(argv[0]);
  var safari = input.browser === "safari";
  var app = Application(safari ? "Safari" : "Google Chrome");
  app.activate();
  if (app.windows.length === 0) {
    return JSON.stringify({ problem: "no_window" });
  }
  var win = app.windows[0];
  var tab = app.Tab({ url: input.url });
  win.tabs.push(tab);
  if (safari) {
    win.currentTab = tab;
  } else {
    win.activeTabIndex = win.tabs.length;
  }
  return JSON.stringify({ opened: true });
}
