// Test script: sends one Apple Event (a property get) to the app named in the input.
function run(argv) {
  var input = JSON.parse(argv[0]);
  return JSON.stringify({ name: Application(input.app).name() });
}
