// Lists the tabs of every window of Safari or Google Chrome, front window first.
// Input: {"browser": "safari" | "chrome", "max_tabs": 500, "max_chars": 2000}.
// Output: {"windows": [{"titles": [...], "urls": [...], "active": local 1-based index}],
//          "total": n} or {"problem": "not_running"}. Deskhand numbers the tabs globally.

function run(argv) {
  var input = JSON.parse(argv[0]);
  return onRunningBrowser(input, function (app, safari) {
    var windows = app.windows();
    var out = [];
    var total = 0;
    for (var i = 0; i < windows.length; i++) {
      var tabs = windows[i].tabs;
      var titles = titleOf(tabs, safari);
      var urls = tabs.url();
      var active = 0;
      if (safari) {
        var visible = tabs.visible();
        for (var j = 0; j < visible.length; j++) {
          if (visible[j] === true) {
            active = j + 1;
          }
        }
      } else {
        active = windows[i].activeTabIndex();
      }
      var room = Math.max(0, input.max_tabs - total);
      total += titles.length;
      out.push({
        titles: titles.slice(0, room).map(function (title) {
          return clip(title, input.max_chars);
        }),
        urls: urls.slice(0, room).map(function (url) {
          return clip(url, input.max_chars);
        }),
        count: titles.length,
        active: active,
      });
    }
    return JSON.stringify({ windows: out, total: total });
  });
}
