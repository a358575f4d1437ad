// Creates a note. Input: {"title", "body", "folder": name or null (the default folder),
// "create_folder": true to create a missing folder, "max_chars": n}.
// Output: {"folder": name, "created_folder": bool, "id": id, "found": what the folder holds
//          under that id afterwards, {"title", "text": its plain text}, or null}
//     or  {"problem": "no_such_folder", "folders": [names]}.
// Notes keeps a note as HTML whose first line is its title, so the text is escaped as HTML
// (data for Notes, never script) with one <div> per line.

function escapeHTML(text) {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

function noteHTML(title, body) {
  var parts = ["<div><h1>" + escapeHTML(title) + "</h1></div>"];
  if (body !== "") {
    body.split("\n").forEach(function (line) {
      parts.push(line === "" ? "<div><br></div>" : "<div>" + escapeHTML(line) + "</div>");
    });
  }
  return parts.join("");
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  var notes = Application("Notes");
  var folder;
  var created = false;
  if (input.folder === null) {
    folder = notes.defaultAccount.defaultFolder;
  } else {
    var matches = notes.folders.whose({ name: input.folder });
    if (matches.length > 0) {
      folder = matches[0];
    } else if (input.create_folder) {
      folder = notes.Folder({ name: input.folder });
      notes.defaultAccount.folders.push(folder);
      created = true;
    } else {
      return JSON.stringify({ problem: "no_such_folder", folders: notes.folders.name() });
    }
  }
  var note = notes.Note({ body: noteHTML(input.title, input.body) });
  folder.notes.push(note);
  var id = note.id();
  var found = folder.notes.byId(id);
  var back = found.exists()
    ? { title: clip(found.name(), input.max_chars), text: clip(found.plaintext(), input.max_chars) }
    : null;
  return JSON.stringify({ folder: folder.name(), created_folder: created, id: id, found: back });
}
