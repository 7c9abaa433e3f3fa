// qoslab serve's page: every edit of the scenario, the pasted IOS configuration or the
// settings is posted to /run a moment after typing stops; the answer's HTML (rendered and
// escaped by the server) replaces the results, and each error is marked at its line.
// An answer to an older edit than the last one sent is dropped.
(function () {
  "use strict";

  const settings = JSON.parse(document.getElementById("qoslab-serve").textContent);
  const WAIT_MS = 250;
  const state = { sent: 0, shown: 0, timer: null, runs: 0 };

  function byId(id) { return document.getElementById(id); }

  function numberLines(editor, marks) {
    const text = byId(editor + "-text").value;
    const gutter = byId(editor + "-gutter");
    gutter.replaceChildren();
    const lines = text.split("\n").length;
    for (let line = 1; line <= lines; line++) {
      const number = document.createElement("span");
      number.textContent = String(line);
      if (marks[line]) {
        number.className = "error";
        number.title = marks[line];
      }
      gutter.appendChild(number);
    }
    gutter.scrollTop = byId(editor + "-text").scrollTop;
  }

  // Select line `line` of an editor from column `column` to its end, and scroll it into view.
  function goTo(editor, line, column) {
    const area = byId(editor + "-text");
    const lines = area.value.split("\n");
    const before = lines.slice(0, line - 1).reduce(function (sum, text) { return sum + text.length + 1; }, 0);
    const start = before + Math.max(0, Math.min((column || 1) - 1, (lines[line - 1] || "").length));
    area.focus();
    area.setSelectionRange(start, before + (lines[line - 1] || "").length);
    const height = parseFloat(window.getComputedStyle(area).lineHeight) || 19;
    area.scrollTop = Math.max(0, (line - 1) * height - area.clientHeight / 3);
  }

  function showErrors(errors) {
    ["scenario", "ios"].forEach(function (editor) {
      const list = byId(editor + "-errors");
      list.replaceChildren();
      const marks = {};
      errors.filter(function (error) { return error.editor === editor; }).forEach(function (error) {
        const item = document.createElement("li");
        item.textContent = (error.line ? "line " + error.line + (error.column ? ", column " + error.column : "") + ": " : "") + error.message;
        item.dataset.line = String(error.line);
        if (error.line) {
          item.tabIndex = 0;
          item.title = "show this line in the editor";
          item.addEventListener("click", function () { goTo(editor, error.line, error.column); });
          item.addEventListener("keydown", function (event) {
            if (event.key === "Enter") goTo(editor, error.line, error.column);
          });
        }
        list.appendChild(item);
        if (error.line) marks[error.line] = error.message;
      });
      numberLines(editor, marks);
    });
  }

  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
  const charts = {};

  // One chart per metric: the flows along the axis, a bar per configuration.
  function drawCharts(chart) {
    [["chart-delay", "delay_p99_ms", "delay p99 (ms)"], ["chart-loss", "loss_pct", "loss (%)"]].forEach(function (entry) {
      const id = entry[0];
      const series = chart.metrics[entry[1]] || [];
      if (charts[id]) charts[id].destroy();
      charts[id] = new Chart(byId(id), {
        type: "bar",
        data: {
          labels: chart.flows,
          datasets: series.map(function (configuration, i) {
            return { label: configuration.name, data: configuration.values, backgroundColor: PALETTE[i % PALETTE.length] };
          }),
        },
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          plugins: { title: { display: true, text: entry[2] + " per flow" }, legend: { position: "bottom" } },
          scales: { y: { beginAtZero: true, title: { display: true, text: entry[2] } } },
        },
      });
    });
  }

  function request() {
    const compare = Array.from(document.querySelectorAll("#compare input:checked")).map(function (box) { return box.value; });
    return {
      scenario: byId("scenario-text").value,
      interface: byId("interface").value,
      compare: compare,
      ios: byId("ios-text").value,
      ios_interface: byId("ios-interface").value,
      target_pct: Number(byId("target").value),
    };
  }

  function run() {
    const number = ++state.sent;
    byId("status").textContent = "running…";
    fetch("/run", {
      method: "POST",
      headers: { "content-type": "application/json", "x-qoslab-token": settings.token },
      body: JSON.stringify(request()),
    }).then(function (response) {
      return response.json();
    }).then(function (answer) {
      if (number < state.shown) return;
      state.shown = number;
      state.runs += 1;
      byId("outcome").innerHTML = answer.html;
      if (answer.chart) drawCharts(answer.chart);
      showErrors(answer.errors);
      byId("status").textContent = answer.errors.length ? "fix the errors marked on the left" : "up to date";
      byId("status").dataset.runs = String(state.runs);
    }).catch(function (error) {
      byId("status").textContent = "the server did not answer: " + error;
    });
  }

  function soon() {
    window.clearTimeout(state.timer);
    state.timer = window.setTimeout(run, WAIT_MS);
  }

  ["scenario", "ios"].forEach(function (editor) {
    const area = byId(editor + "-text");
    area.addEventListener("input", function () { numberLines(editor, {}); soon(); });
    area.addEventListener("scroll", function () { byId(editor + "-gutter").scrollTop = area.scrollTop; });
  });
  window.qoslabServe = { chart: function (id) { return charts[id]; } };
  ["interface", "ios-interface", "target"].forEach(function (id) { byId(id).addEventListener("input", soon); });
  document.querySelectorAll("#compare input").forEach(function (box) { box.addEventListener("change", soon); });
  showErrors([]);
  run();
})();
