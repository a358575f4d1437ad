// Makes one tab current and brings its window and the browser to the front.
// Input: {"browser": "safari" | "chrome", "index": global 1-based index, "expect_url": url or
//         null}. Output: {"title", "url", "current": the URL of the window's current tab read
//         back afterwards, "front": whether that window is the browser's front one} or
//         {"problem": "not_running" | "no_such_tab" | "changed"} ("changed": the tab at that
//         index no longer has the expected URL).

function run(argv) {
  var input = JSON.parse(argv[0]);
  return onRunningBrowser(input, function (app, safari) {
    var found = locateTab(app, input.index);
    if (found.problem) {
      return JSON.stringify({ problem: "no_such_tab" });
    }
    var tab = tabOf(found, safari);
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
    var now = { win: found.win, local: null };
    return JSON.stringify({
      title: titleOf(tab, safari),
      url: url,
      current: tabOf(now, safari).url(),
      front: found.win.index() === 1,
    });
  });
}
