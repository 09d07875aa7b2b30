// The page of play.py --web: draws what GET /api/<token>/state returns and sends the clicked move.
"use strict";
const token = decodeURIComponent(location.pathname.split("/").pop());
const api = "/api/" + encodeURIComponent(token);
const $ = (id) => document.getElementById(id);
let state = null;
let replay = null;
let polling = null;

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function call(path, options) {
  const response = await fetch(api + path, options);
  const data = await response.json().catch(() => ({ error: "the server sent no JSON (HTTP " + response.status + ")" }));
  if (!response.ok) {
    throw new Error(data.error || "HTTP " + response.status);
  }
  showError("");
  return data;
}

function post(path, body) {
  return call(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

// -- playing ------------------------------------------------------------------------------------
function draw(data) {
  state = data;
  $("picture").innerHTML = data.picture;
  $("view").textContent = data.view;
  $("status").textContent = data.over ? "game over"
    : data.your_turn ? "seat " + data.seat + ": your move"
    : "waiting for seat " + data.to_move + " (" + data.labels[data.to_move] + ")";
  drawLog(data.log);
  drawMoves();
  $("moves-box").hidden = data.over;
  $("result-box").hidden = !data.over;
  $("record-note").hidden = data.over;
  if (data.over) {
    $("result").textContent = data.result;
    $("scores").replaceChildren(...data.scores.map((score, seat) => {
      const row = document.createElement("tr");
      for (const text of ["seat " + seat, seat === data.seat ? "you" : data.labels[seat], String(score)]) {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }));
    $("download").href = api + "/record";
  }
  clearTimeout(polling);
  if (!data.over && !data.your_turn) {
    polling = setTimeout(refresh, 1500); // another person's seat is to act
  }
}

// The log only grows during a game, and a long game has thousands of lines: drawing them all again after every
// move made each move slower than the one before (0.4 s a move late in a mythotopia game), so only the new lines
// are added; a log that does not go on from the lines shown (a new game) is drawn again.
let shownLog = [];

function drawLog(lines) {
  const log = $("log");
  const goesOn = shownLog.length <= lines.length && shownLog.every((line, k) => line === lines[k]);
  const added = lines.slice(goesOn ? shownLog.length : 0).map((line) => {
    const item = document.createElement("li");
    item.textContent = line;
    return item;
  });
  if (goesOn) {
    log.append(...added);
  } else {
    log.replaceChildren(...added);
  }
  shownLog = lines;
  if (added.length) {
    log.scrollTop = log.scrollHeight;
  }
}

function drawMoves() {
  const filter = $("filter");
  filter.hidden = state.moves.length <= 12;
  const wanted = filter.value.trim().toLowerCase();
  const buttons = state.moves.filter((move) => !wanted || move.name.toLowerCase().includes(wanted)).map((move) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move";
    button.textContent = move.name;
    button.addEventListener("click", () => play(move.index));
    return button;
  });
  if (!buttons.length && wanted) {
    const none = document.createElement("p");
    none.className = "note";
    none.textContent = "no move contains \u201c" + filter.value.trim() + "\u201d";
    buttons.push(none);
  }
  $("moves").replaceChildren(...buttons);
}

async function play(index) {
  for (const button of $("moves").querySelectorAll("button")) button.disabled = true;
  try {
    draw(await post("/move", { index: index, ply: state.ply }));
    $("filter").value = "";
    drawMoves();
  } catch (error) {
    await refresh();
    showError(error.message);
  }
}

async function refresh() {
  try {
    draw(await call("/state"));
  } catch (error) {
    showError(error.message);
  }
}

// -- replaying ----------------------------------------------------------------------------------
function showTab(name) {
  $("play").hidden = name !== "play";
  $("replay").hidden = name !== "replay";
  $("show-play").classList.toggle("active", name === "play");
  $("show-replay").classList.toggle("active", name === "replay");
}

function drawReplay(data) {
  replay = data;
  $("replay-title").textContent = "replay of " + data.game + ", " + data.num_players + " players";
  $("r-position").value = data.position;
  $("r-position").max = data.length;
  $("r-length").textContent = data.length;
  $("r-move").textContent = "move " + data.position + "/" + data.length + ": " + data.move;
  $("r-result").textContent = data.result || "";
  $("r-picture").innerHTML = data.picture;
  $("r-view").textContent = data.view;
  const select = $("r-seat");
  if (select.options.length !== data.num_players) {
    select.replaceChildren(...data.labels.map((label, seat) => new Option(seat + " (" + label + ")", seat)));
  }
  select.value = data.view_seat;
}

async function goto(position) {
  if (!replay) {
    showError("load a record first");
    return;
  }
  const target = Math.max(0, Math.min(replay.length, position));
  try {
    drawReplay(await call("/replay?position=" + target + "&seat=" + $("r-seat").value));
  } catch (error) {
    showError(error.message);
  }
}

async function loadReplay(record) {
  try {
    drawReplay(await post("/replay", record === null ? {} : { record: record }));
    showTab("replay");
  } catch (error) {
    showError(error.message);
  }
}

// -- wiring -------------------------------------------------------------------------------------
$("filter").addEventListener("input", drawMoves);
$("new-game").addEventListener("click", async () => {
  try {
    draw(await post("/new", {}));
  } catch (error) {
    showError(error.message);
  }
});
$("show-play").addEventListener("click", () => showTab("play"));
$("show-replay").addEventListener("click", () => showTab("replay"));
$("replay-this").addEventListener("click", () => loadReplay(null));
$("r-start").addEventListener("click", () => goto(0));
$("r-back").addEventListener("click", () => goto(replay ? replay.position - 1 : 0));
$("r-next").addEventListener("click", () => goto(replay ? replay.position + 1 : 0));
$("r-end").addEventListener("click", () => goto(replay ? replay.length : 0));
$("r-position").addEventListener("change", () => goto(Number($("r-position").value)));
$("r-seat").addEventListener("change", () => goto(replay ? replay.position : 0));
$("r-file").addEventListener("change", async () => {
  const file = $("r-file").files[0];
  if (!file) return;
  let record;
  try {
    record = JSON.parse(await file.text());
  } catch (error) {
    showError("that file is not JSON: " + error.message);
    return;
  }
  await loadReplay(record);
});
refresh();
