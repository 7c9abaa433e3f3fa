// A sweep's interactive page: one selector per varied key chooses a point of the grid, and
// every chart and table shows that point, from the data the page carries (#qoslab-data).
// Nothing is fetched. Names reach the page through textContent only, never as markup.
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("qoslab-data").textContent);
  const DEFAULT_METRIC = "delay_p99_ms";
  const state = { values: [], metric: "", along: 0 };
  state.metric = data.metrics.some(function (metric) { return metric.name === DEFAULT_METRIC; })
    ? DEFAULT_METRIC
    : (data.metrics.length ? data.metrics[0].name : "");
  const charts = {};

  function element(tag, text, className) {
    const made = document.createElement(tag);
    if (text !== undefined) made.textContent = text;
    if (className) made.className = className;
    return made;
  }

  function pointIndex(values) {
    return data.points.findIndex(function (point) {
      return point.values.every(function (value, i) { return value === values[i]; });
    });
  }

  function currentPoint() {
    const index = pointIndex(state.values);
    return index < 0 ? null : data.points[index];
  }

  function metricInfo(name) {
    return data.metrics.find(function (metric) { return metric.name === name; });
  }

  function metricTitle(name) {
    const metric = metricInfo(name);
    return metric.unit ? metric.label + " (" + metric.unit + ")" : metric.label;
  }

  function pointLabel(values) {
    if (!data.keys.length) return "the scenario as written";
    return data.keys.map(function (key, i) { return key.short + " " + values[i]; }).join(", ");
  }

  // The first point shown: the cheapest that meets every budget, else the first point.
  function initialValues() {
    const cheapest = data.points.find(function (point) { return point.cheapest; });
    const first = cheapest || data.points[0];
    return first ? first.values.slice() : [];
  }

  function buildSelectors() {
    const holder = document.getElementById("selectors");
    data.keys.forEach(function (key, i) {
      const label = element("label", undefined, "selector");
      label.appendChild(element("span", key.short, "selector-name"));
      const select = element("select");
      select.id = "select-" + i;
      select.dataset.key = key.key;
      select.title = key.key;
      key.values.forEach(function (value) {
        const option = element("option", value);
        option.value = value;
        select.appendChild(option);
      });
      select.addEventListener("change", function () {
        state.values[i] = select.value;
        update();
      });
      label.appendChild(select);
      holder.appendChild(label);
    });
    const metricLabel = element("label", undefined, "selector");
    metricLabel.appendChild(element("span", "metric", "selector-name"));
    const metric = element("select");
    metric.id = "select-metric";
    data.metrics.forEach(function (entry) {
      const option = element("option", metricTitle(entry.name));
      option.value = entry.name;
      metric.appendChild(option);
    });
    metric.addEventListener("change", function () {
      state.metric = metric.value;
      update();
    });
    metricLabel.appendChild(metric);
    holder.appendChild(metricLabel);
    if (data.keys.length > 1) {
      const alongLabel = element("label", undefined, "selector");
      alongLabel.appendChild(element("span", "along", "selector-name"));
      const along = element("select");
      along.id = "select-along";
      data.keys.forEach(function (key, i) {
        const option = element("option", key.short);
        option.value = String(i);
        along.appendChild(option);
      });
      along.addEventListener("change", function () {
        state.along = Number(along.value);
        update();
      });
      alongLabel.appendChild(along);
      holder.appendChild(alongLabel);
    }
  }

  function syncSelectors() {
    data.keys.forEach(function (key, i) {
      document.getElementById("select-" + i).value = state.values[i];
    });
    document.getElementById("select-metric").value = state.metric;
  }

  function chart(id, config) {
    if (charts[id]) charts[id].destroy();
    charts[id] = new Chart(document.getElementById(id), config);
    return charts[id];
  }

  // Each dataset may carry `errors`, the half-width of the 95 % interval of each value: drawn
  // as a bar from mean - half to mean + half with caps, over the bars or points.
  const errorBars = {
    id: "qoslabErrorBars",
    afterDatasetsDraw: function (drawn) {
      const context = drawn.ctx;
      const scale = drawn.scales.y;
      drawn.data.datasets.forEach(function (dataset, index) {
        if (!dataset.errors || !drawn.isDatasetVisible(index)) return;
        drawn.getDatasetMeta(index).data.forEach(function (element, i) {
          const value = dataset.data[i];
          const half = dataset.errors[i];
          if (value === null || half === null || half === undefined) return;
          const top = scale.getPixelForValue(value + half);
          const bottom = scale.getPixelForValue(Math.max(value - half, scale.min));
          context.save();
          context.strokeStyle = "#333333";
          context.lineWidth = 1;
          context.beginPath();
          context.moveTo(element.x, top);
          context.lineTo(element.x, bottom);
          context.moveTo(element.x - 4, top);
          context.lineTo(element.x + 4, top);
          context.moveTo(element.x - 4, bottom);
          context.lineTo(element.x + 4, bottom);
          context.stroke();
          context.restore();
        });
      });
    },
  };

  const common = { animation: false, responsive: true, maintainAspectRatio: false };

  function drawFlows(point) {
    const estimates = data.flows.map(function (flow) {
      return (point && point.flows[flow] && point.flows[flow][state.metric]) || null;
    });
    chart("chart-flows", {
      type: "bar",
      plugins: [errorBars],
      data: {
        labels: data.flows,
        datasets: [{
          label: metricTitle(state.metric),
          data: estimates.map(function (estimate) { return estimate ? estimate[0] : null; }),
          errors: estimates.map(function (estimate) { return estimate ? estimate[1] : null; }),
          backgroundColor: data.flows.map(function (flow) { return data.colours[flow]; }),
        }],
      },
      options: Object.assign({}, common, {
        plugins: { legend: { display: false }, title: { display: true, text: metricTitle(state.metric) + " per flow, mean and 95 % interval" } },
        scales: { y: { beginAtZero: true, title: { display: true, text: metricTitle(state.metric) } } },
      }),
    });
  }

  function drawAlong() {
    const key = data.keys[state.along];
    if (!key) {
      // Nothing varies: no line to draw along a key.
      document.getElementById("chart-along").parentElement.hidden = true;
      return;
    }
    const datasets = data.flows.map(function (flow) {
      const estimates = key.values.map(function (value) {
        const values = state.values.slice();
        values[state.along] = value;
        const index = pointIndex(values);
        const flows = index < 0 ? null : data.points[index].flows[flow];
        return (flows && flows[state.metric]) || null;
      });
      return {
        label: flow,
        data: estimates.map(function (estimate) { return estimate ? estimate[0] : null; }),
        errors: estimates.map(function (estimate) { return estimate ? estimate[1] : null; }),
        borderColor: data.colours[flow],
        backgroundColor: data.colours[flow],
        spanGaps: false,
      };
    });
    const fixed = data.keys
      .map(function (other, i) { return i === state.along ? null : other.short + " " + state.values[i]; })
      .filter(function (text) { return text !== null; });
    chart("chart-along", {
      type: "line",
      plugins: [errorBars],
      data: { labels: key.values, datasets: datasets },
      options: Object.assign({}, common, {
        plugins: {
          legend: { position: "bottom", labels: { boxWidth: 14 } },
          title: { display: true, text: metricTitle(state.metric) + " along " + key.short + (fixed.length ? " (" + fixed.join(", ") + ")" : "") },
        },
        scales: {
          x: { title: { display: true, text: key.short } },
          y: { beginAtZero: true, title: { display: true, text: metricTitle(state.metric) } },
        },
      }),
    });
  }

  function drawContract(point) {
    const lows = data.apps.map(function (app) {
      const verdict = point && point.apps[app];
      return verdict ? verdict.low : null;
    });
    const colours = data.apps.map(function (app) {
      const verdict = point && point.apps[app];
      return verdict && verdict.in ? "#2e8b46" : "#c0392b";
    });
    chart("chart-contract", {
      data: {
        labels: data.apps,
        datasets: [
          { type: "bar", label: "lower bound", data: lows, backgroundColor: colours },
          {
            type: "line",
            label: "target " + data.target_pct + " %",
            data: data.apps.map(function () { return data.target_pct; }),
            borderColor: "#1d2330",
            borderDash: [6, 4],
            pointRadius: 0,
          },
        ],
      },
      options: Object.assign({}, common, {
        plugins: { title: { display: true, text: "Share of intervals in contract, lower " + data.confidence_pct + " % bound" } },
        scales: { y: { min: 0, max: 100, title: { display: true, text: "% of intervals" } } },
      }),
    });
  }

  function fillFlowsTable(point) {
    const table = document.getElementById("flows-table");
    table.replaceChildren();
    const head = element("thead");
    const row = element("tr");
    row.appendChild(element("th", "flow"));
    data.metrics.forEach(function (metric) {
      const cell = element("th", metric.label, "num");
      if (metric.unit) cell.appendChild(element("span", metric.unit, "unit"));
      row.appendChild(cell);
    });
    head.appendChild(row);
    table.appendChild(head);
    const body = element("tbody");
    data.flows.forEach(function (flow) {
      const line = element("tr");
      line.dataset.flow = flow;
      line.appendChild(element("td", flow));
      data.metrics.forEach(function (metric) {
        const estimate = point && point.flows[flow] && point.flows[flow][metric.name];
        const cell = element("td", estimate ? estimate[2] : "-", "num");
        cell.dataset.metric = metric.name;
        line.appendChild(cell);
      });
      body.appendChild(line);
    });
    table.appendChild(body);
  }

  function fillAppsTable(point) {
    const table = document.getElementById("apps-table");
    table.replaceChildren();
    if (!data.apps.length) return;
    const head = element("thead");
    const row = element("tr");
    ["application", "mean in contract", "lower bound", "verdict"].forEach(function (text, i) {
      row.appendChild(element("th", text, i > 0 && i < 3 ? "num" : ""));
    });
    head.appendChild(row);
    table.appendChild(head);
    const body = element("tbody");
    data.apps.forEach(function (app) {
      const verdict = point && point.apps[app];
      const line = element("tr");
      line.dataset.app = app;
      line.appendChild(element("td", app));
      line.appendChild(element("td", verdict ? verdict.mean.toFixed(1) + " %" : "-", "num"));
      line.appendChild(element("td", verdict ? verdict.low.toFixed(1) + " %" : "-", "num"));
      const shown = verdict ? (verdict.in ? "in" : "out") : "none";
      line.appendChild(element("td", verdict ? (verdict.in ? "in contract" : "out of contract") : "no result", "verdict " + shown));
      body.appendChild(line);
    });
    table.appendChild(body);
  }

  function markRows() {
    const index = pointIndex(state.values);
    document.querySelectorAll("table.verdicts tbody tr").forEach(function (row, i) {
      row.classList.toggle("selected", i === index);
    });
  }

  function update() {
    syncSelectors();
    const point = currentPoint();
    const status = document.getElementById("point-status");
    if (!point) {
      status.textContent = pointLabel(state.values) + ": no runs at this point";
      status.className = "status none";
    } else if (!data.apps.length) {
      status.textContent = pointLabel(state.values);
      status.className = "status";
    } else {
      status.textContent = pointLabel(state.values) + (point.every ? ": every budget met" : ": not every budget met") + (point.cheapest ? " (the cheapest such point)" : "");
      status.className = "status " + (point.every ? "in" : "out");
    }
    drawFlows(point);
    drawAlong();
    if (data.apps.length) drawContract(point);
    fillFlowsTable(point);
    fillAppsTable(point);
    markRows();
  }

  function connectVerdictRows() {
    document.querySelectorAll("table.verdicts tbody tr").forEach(function (row, i) {
      row.tabIndex = 0;
      const choose = function () {
        state.values = data.points[i].values.slice();
        update();
      };
      row.addEventListener("click", choose);
      row.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          choose();
        }
      });
    });
  }

  state.values = initialValues();
  buildSelectors();
  connectVerdictRows();
  update();

  // For scripts and tests: the point shown, and a way to choose one.
  window.qoslabSweep = {
    data: data,
    values: function () { return state.values.slice(); },
    select: function (key, value) {
      const i = data.keys.findIndex(function (entry) { return entry.key === key || entry.short === key; });
      if (i < 0) throw new Error("not a varied key: " + key);
      state.values[i] = String(value);
      update();
    },
    chart: function (id) { return charts[id]; },
  };
})();
