// Adds a reminder. Input: {"title", "list": name or null (the default list), "due": <ms> or
// null, "all_day": true when only a date was given, "notes": text or null, "max_chars": n}.
// Output: {"list": name, "id": id, "found": what the list holds under that id afterwards,
//          {"title", "notes", "due": <ms> or null, "allday_due": <ms> or null}, or null}
//     or  {"problem": "no_such_list", "lists": [names]}.

function findList(reminders, wanted) {
  var exact = reminders.lists.byName(wanted);
  if (exact.exists()) {
    return exact;
  }
  var names = reminders.lists.name();
  for (var i = 0; i < names.length; i++) {
    if (names[i].toLowerCase() === wanted.toLowerCase()) {
      return reminders.lists.byName(names[i]);
    }
  }
  return null;
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  var reminders = Application("Reminders");
  var list = input.list === null ? reminders.defaultList() : findList(reminders, input.list);
  if (list === null) {
    return JSON.stringify({ problem: "no_such_list", lists: reminders.lists.name() });
  }
  var properties = { name: input.title };
  if (input.notes) {
    properties.body = input.notes;
  }
  if (input.due !== null) {
    if (input.all_day) {
      properties.alldayDueDate = new Date(input.due);
    } else {
      properties.dueDate = new Date(input.due);
    }
  }
  var reminder = reminders.Reminder(properties);
  list.reminders.push(reminder);
  var id = reminder.id();
  return JSON.stringify({ list: list.name(), id: id, found: readBack(list, id, input.max_chars) });
}

// The reminder the list holds under `id`, as Reminders reports it now, or null.
function readBack(list, id, limit) {
  var found = list.reminders.byId(id);
  if (!found.exists()) {
    return null;
  }
  var due = found.dueDate();
  var allday = found.alldayDueDate();
  return {
    title: clip(found.name(), limit),
    notes: clip(found.body(), limit),
    due: due ? due.getTime() : null,
    allday_due: allday ? allday.getTime() : null,
  };
}
