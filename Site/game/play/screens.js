/* RocketMouse kit — screens: showing one, reading the survey, writing a result. */
(function (RM) {
  "use strict";
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }

  /** Shows one screen and moves the focus to its heading (or `focus`). */
  function show(name, focus) {
    Array.prototype.forEach.call(document.querySelectorAll("section[data-screen]"), function (s) {
      s.hidden = s.getAttribute("data-screen") !== name;
    });
    document.body.setAttribute("data-current", name);
    status("");   // a message belongs to the screen it was written on
    var target = focus || document.querySelector('section[data-screen="' + name + '"] h1');
    if (target) target.focus();
  }

  function status(text) { $("status").textContent = text || ""; }

  function radio(name) {
    var c = document.querySelector('#survey-form input[name="' + name + '"]:checked');
    return c ? c.value : null;
  }

  /** The survey as answered, with the first problem (null when complete and valid).
      Fields follow docs/game-telemetry.md: unanswered ones are left out. */
  function readSurvey() {
    var s = {}, problem = null, d = radio("diagnosed"), m = radio("medicated"), g = radio("gender");
    var ageText = $("age").value.trim();
    if (d) s.diagnosed = d === "yes";
    if (d === "yes" && m) s.medicated = m === "yes";
    if (ageText !== "") {
      if (/^[0-9]{1,3}$/.test(ageText) && +ageText >= 3 && +ageText <= 120) s.age = +ageText;
      else problem = "Age: give a whole number of years from 3 to 120.";
    }
    if (g) s.gender = g;
    if (!problem && !d) problem = "Please answer whether you have been diagnosed with ADHD.";
    if (!problem && d === "yes" && !m) problem = "Please answer whether you take medicine for ADHD.";
    if (!problem && s.age === undefined) problem = "Please give your age.";
    if (!problem && !g) problem = "Please choose a gender.";
    return { answers: s, problem: problem };
  }

  /** The survey record (field order of docs/game-telemetry.md). */
  function surveyRecord(player, answers, complete) {
    var r = { type: "survey", player: player, complete: complete };
    ["diagnosed", "medicated", "age", "gender"].forEach(function (k) { if (answers[k] !== undefined) r[k] = answers[k]; });
    return r;
  }

  function resetSurvey() {
    $("survey-form").reset();
    $("medicated-set").hidden = true;
    $("survey-error").textContent = "";
  }

  function pct(x) { return x === null || x === undefined ? "–" : Math.round(x * 100) + " %"; }

  /** Writes a decrypted result (the fields of `game analyze --json` for one player). */
  function showResult(r) {
    var body = $("result-body"), m = r.measures || {}, lk = r.likelihood || {};
    body.textContent = "";
    body.appendChild(el("h2", "Your games"));
    body.appendChild(el("p", "Best score " + (m.bestScore === null || m.bestScore === undefined ? "–" : m.bestScore) +
      " over " + (m.sessions || 0) + (m.sessions === 1 ? " game" : " games") +
      (m.lastScore !== undefined && m.lastScore !== null ? "; latest score " + m.lastScore : "") + "."));
    body.appendChild(el("h2", "Likelihood"));
    if (lk.probability !== null && lk.probability !== undefined) {
      body.appendChild(el("p", "Among the players in this study who play like you, the model estimates that " + pct(lk.probability) +
        " reported an ADHD diagnosis (95 % interval " + pct(lk.low) + " to " + pct(lk.high) + ")."));
      body.appendChild(el("p", "This is a share in this study, where far more players have a diagnosis than in the general " +
        "population (about 5 % of children and 2–3 % of adults); it is not your chance of having ADHD.", "muted"));
    } else {
      body.appendChild(el("p", lk.unavailable || "No estimate yet."));
    }
    if (lk.suggest) {
      var c = el("p", "", "callout");
      c.appendChild(el("strong", "You may want to talk to a doctor or psychologist"));
      c.appendChild(document.createTextNode(" about attention. " + (lk.reason || "")));
      body.appendChild(c);
    } else if (lk.reason && lk.probability !== null && lk.probability !== undefined) {
      body.appendChild(el("p", lk.reason));
    }
    body.appendChild(el("p", "This is a screening signal from a game, not a diagnosis. Only a qualified professional can assess ADHD. " +
      "A family doctor can refer you for an assessment.", "wording"));
  }

  function noResult(reason) {
    var body = $("result-body");
    body.textContent = "";
    body.appendChild(el("p", "There is no result for you yet."));
    body.appendChild(el("p", reason || "Results appear after the study team has received your games and updated this site. Keep playing, and look again later.", "muted"));
  }

  /** The list of players to choose from; onPick(player). */
  function playerList(players, current, onPick) {
    var ul = $("player-list");
    ul.textContent = "";
    players.forEach(function (p) {
      var li = el("li"), b = el("button", label(p));
      b.type = "button";
      b.className = p === current ? "" : "secondary";
      b.setAttribute("data-player", p.id);
      b.addEventListener("click", function () { onPick(p); });
      li.appendChild(b); ul.appendChild(li);
    });
  }

  function label(p) { return "Player " + p.n + " (…" + p.id.slice(-4) + ")"; }

  RM.screens = { show: show, status: status, readSurvey: readSurvey, surveyRecord: surveyRecord, resetSurvey: resetSurvey,
                 showResult: showResult, noResult: noResult, playerList: playerList, label: label, $: $ };
})(window.RM = window.RM || {});
