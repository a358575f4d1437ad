// Which browsers are running, without launching either. Input: {}.
// Output: {"safari": true, "chrome": false}.
function isRunning(name) {
  try {
    return Application(name).running() === true;
  } catch (error) {
    return false; // not installed
  }
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  var out = {};
  out.safari = input.safari === false ? false : isRunning("Safari");
  out.chrome = input.chrome === false ? false : isRunning("Google Chrome");
  return JSON.stringify(out);
}
