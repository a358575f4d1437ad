// Adds a reminder. Input: {"title", "list": name or null (the default list), "due": <ms> or
// null, "all_day": true when only a date was given, "notes": text or null}.
// Output: {"list": name, "id": id} or {"problem": "no_such_list", "lists": [names]}.

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
  return JSON.stringify({ list: list.name(), id: reminder.id() });
}
