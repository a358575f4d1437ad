// Closes tabs by global 1-based index, highest first so the other indices do not shift.
// Input: {"browser": "safari" | "chrome", "indices": [2, 5, 8], "expect_urls": [url, ...] in
//         the same order, or null}.
// Output: {"closed": [{"title", "url"}], "before": tabs in all before, "after": tabs in all
//         read back afterwards} or {"problem": "not_running" | "no_such_tab" |
//         "changed", "total": n}. Nothing is closed unless every index is valid (and, with
//         expect_urls, still shows the URL the person approved).

function run(argv) {
  var input = JSON.parse(argv[0]);
  return onRunningBrowser(input, function (app, safari) {
    var windows = app.windows();
    var places = [];
    for (var i = 0; i < windows.length; i++) {
      var urls = windows[i].tabs.url();
      var titles = titleOf(windows[i].tabs, safari);
      for (var j = 0; j < urls.length; j++) {
        places.push({ win: i, local: j, url: urls[j], title: titles[j] });
      }
    }
    var chosen = [];
    for (var k = 0; k < input.indices.length; k++) {
      var index = input.indices[k];
      if (!(index >= 1 && index <= places.length)) {
        return JSON.stringify({ problem: "no_such_tab", total: places.length });
      }
      var place = places[index - 1];
      if (input.expect_urls && place.url !== input.expect_urls[k]) {
        return JSON.stringify({ problem: "changed", total: places.length });
      }
      chosen.push({ index: index, place: place });
    }
    chosen.sort(function (a, b) {
      return b.index - a.index;
    });
    var closed = [];
    for (var n = 0; n < chosen.length; n++) {
      var spot = chosen[n].place;
      windows[spot.win].tabs[spot.local].close();
      closed.push({ title: spot.title, url: spot.url });
    }
    var after = 0;
    var left = app.windows();
    for (var w = 0; w < left.length; w++) {
      after += left[w].tabs.length;
    }
    return JSON.stringify({ closed: closed.reverse(), before: places.length, after: after });
  });
}
