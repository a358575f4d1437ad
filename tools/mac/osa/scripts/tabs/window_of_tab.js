// Where one tab is shown: its window's bounds, title and state, for a screenshot of it. Reads only.
// Input: {"browser": "safari" | "chrome", "index": global 1-based index or null (the front
//         window's current tab), "expect_url": url or null, "max_chars": 2000}.
// Output: {"title", "url", "showing": whether it is its window's current tab,
//          "window": {"name", "x", "y", "width", "height" (global points, origin at the top
//          left of the main screen, as AppleScript gives window bounds), "minimized",
//          "visible"}} or {"problem": "not_running" | "no_window" | "no_such_tab" | "changed"}.

// A property that a browser may not have (or may refuse to give) reads as `fallback`.
function read(object, name, fallback) {
  try {
    var value = object[name]();
    return value === undefined || value === null ? fallback : value;
  } catch (error) {
    return fallback;
  }
}

// JXA gives a window's bounds as {x, y, width, height}; AppleScript's list form is accepted too.
function box(bounds) {
  if (Array.isArray(bounds) && bounds.length === 4) {
    return { x: bounds[0], y: bounds[1], width: bounds[2] - bounds[0], height: bounds[3] - bounds[1] };
  }
  if (bounds && typeof bounds.x === "number" && typeof bounds.width === "number") {
    return { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height };
  }
  return null;
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  return onRunningBrowser(input, function (app, safari) {
    var tab;
    var showing;
    var found = locateTab(app, input.index);
    if (found.problem) {
      return JSON.stringify({ problem: found.problem });
    }
    var win = found.win;
    if (safari) {
      tab = tabOf(found, safari);
      showing = read(tab, "visible", false) === true;
    } else {
      var active = win.activeTabIndex();
      var local = found.local === null ? active : found.local;
      tab = win.tabs[local - 1];
      showing = local === active;
    }
    var url = tab.url();
    if (typeof input.expect_url === "string" && url !== input.expect_url) {
      return JSON.stringify({ problem: "changed" });
    }
    var bounds = box(read(win, "bounds", null));
    var where = bounds || { x: 0, y: 0, width: 0, height: 0 };
    return JSON.stringify({
      title: clip(titleOf(tab, safari), input.max_chars),
      url: clip(url, input.max_chars),
      showing: showing,
      window: {
        name: clip(read(win, "name", ""), input.max_chars),
        x: where.x,
        y: where.y,
        width: where.width,
        height: where.height,
        minimized: read(win, safari ? "miniaturized" : "minimized", false) === true,
        visible: read(win, "visible", true) !== false,
      },
    });
  });
}
