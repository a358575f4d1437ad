// What every tabs script shares. The engine puts this file before each script of this folder
// (the worker when it loads a script, a one-shot run as the text it runs), so these are part of
// the same constant code; the only value a script takes is its one JSON argument.

var NOT_RUNNING = JSON.stringify({ problem: "not_running" });

// `act(app, safari)` on the browser the input names, when it runs (it is never launched);
// its answer, or the "not_running" problem.
function onRunningBrowser(input, act) {
  var safari = input.browser === "safari";
  var app = Application(safari ? "Safari" : "Google Chrome");
  return app.running() ? act(app, safari) : NOT_RUNNING;
}

function clip(text, limit) {
  return typeof text === "string" ? text.slice(0, limit) : "";
}

// Where the tab at global 1-based `index` is, counting across windows front first: its window
// and its 1-based place there. With no index, the front window (`local` null: its current tab).
// {problem: "no_window" | "no_such_tab"} when there is no window, or no tab at that index.
function locateTab(app, index) {
  var windows = app.windows();
  if (windows.length === 0) {
    return { problem: "no_window" };
  }
  if (index === null || index === undefined) {
    return { win: windows[0], local: null };
  }
  var seen = 0;
  for (var i = 0; i < windows.length; i++) {
    var count = windows[i].tabs.length;
    if (index <= seen + count) {
      return { win: windows[i], local: index - seen };
    }
    seen += count;
  }
  return { problem: "no_such_tab" };
}

// The tab `locateTab` found: the window's current tab when no index was given.
function tabOf(found, safari) {
  if (found.local !== null) {
    return found.win.tabs[found.local - 1];
  }
  return safari ? found.win.currentTab : found.win.tabs[found.win.activeTabIndex() - 1];
}

function titleOf(tab, safari) {
  return safari ? tab.name() : tab.title();
}
