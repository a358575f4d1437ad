// Lists the events of one day across all calendars.
// Input: {"start": <ms since epoch, local midnight>, "end": <ms, next midnight>, "max_events": 200,
//         "max_chars": 2000}.
// Output: {"events": [{"title", "start", "end", "all_day", "location", "calendar"}], "total": n},
// times in ms since the epoch, sorted by start. Calendar's scripting returns a recurring event
// once, at its first occurrence, so repeats of older recurring events are not listed.

function run(argv) {
  var input = JSON.parse(argv[0]);
  var start = new Date(input.start);
  var end = new Date(input.end);
  var calendarApp = Application("Calendar");
  var calendars = calendarApp.calendars();
  var events = [];
  for (var i = 0; i < calendars.length; i++) {
    var calendarName = calendars[i].name();
    // Overlap with [start, end): also catches events that begin before midnight or end after
    // it; an all-day event of the day before ends exactly at `start` and is left out.
    var found = calendars[i].events.whose({
      _and: [{ startDate: { _lessThan: end } }, { endDate: { _greaterThan: start } }],
    });
    var titles = found.summary();
    var starts = found.startDate();
    var ends = found.endDate();
    var allDay = found.alldayEvent();
    var places = found.location();
    for (var j = 0; j < titles.length; j++) {
      events.push({
        title: clip(titles[j], input.max_chars),
        start: starts[j].getTime(),
        end: ends[j].getTime(),
        all_day: allDay[j] === true,
        location: clip(places[j], input.max_chars),
        calendar: clip(calendarName, input.max_chars),
      });
    }
  }
  events.sort(function (a, b) {
    return a.start - b.start || a.end - b.end;
  });
  return JSON.stringify({ events: events.slice(0, input.max_events), total: events.length });
}
