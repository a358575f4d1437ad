// Makes one tab current and brings its window and the browser to the front.
// Input: {"browser": "safari" | "chrome", "index": global 1-based index, "expect_url": url or
//         null}. Output: {"title", "url"} or {"problem": "not_running" | "no_such_tab" |
//         "changed"} ("changed": the tab at that index no longer has the expected URL).

function locate(app, safari, index) {
  var windows = app.windows();
  var seen = 0;
  for (var i = 0; i < windows.length; i++) {
    var count = windows[i].tabs.length;
    if (index <= seen + count) {
      return { win: windows[i], local: index - seen };
    }
    seen += count;
  }
  return null;
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  var safari = input.browser === "safari";
  var app = Application(safari ? "Safari" : "Google Chrome");
  if (!app.running()) {
    return JSON.stringify({ problem: "not_running" });
  }
  var found = locate(app, safari, input.index);
  if (found === null) {
    return JSON.stringify({ problem: "no_such_tab" });
  }
  var tab = found.win.tabs[found.local - 1];
  var url = tab.url();
  if (typeof input.expect_url === "string" && url !== input.expect_url) {
    return JSON.stringify({ problem: "changed" });
  }
  if (safari) {
    found.win.currentTab = tab;
  } else {
    found.win.activeTabIndex = found.local;
  }
  found.win.index = 1;
  app.activate();
  return JSON.stringify({ title: safari ? tab.name() : tab.title(), url: url });
}
