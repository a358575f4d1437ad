// Lists the displays. Input: {} (nothing). Output: {"screens": [{"name", "frame": [x, y, w, h],
// "visible": [x, y, w, h]}]} in Cocoa coordinates (origin at the bottom left of the main
// screen, y up); the first screen is the main one (the one with the menu bar). Deskhand turns
// these into the top-left coordinates that window positions use.

function box(rect) {
  return [rect.origin.x, rect.origin.y, rect.size.width, rect.size.height];
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  ObjC.import("AppKit");
  var screens = $.NSScreen.screens;
  var out = [];
  for (var i = 0; i < screens.count && i < input.max_screens; i++) {
    var screen = screens.objectAtIndex(i);
    out.push({
      name: String(ObjC.unwrap(screen.localizedName) || "Display"),
      frame: box(screen.frame),
      visible: box(screen.visibleFrame),
    });
  }
  return JSON.stringify({ screens: out });
}
