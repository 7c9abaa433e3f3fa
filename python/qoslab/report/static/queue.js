// A queue animation: one port of a run, from the packets the page carries (#qoslab-queue),
// each with the times it arrived, left its class's queue for the transmit ring, started on
// the wire or was dropped. stateAt(t) places every packet at time t; the drawing, the time
// scrubber and play/pause show it. Names reach the page through textContent only.
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("qoslab-queue").textContent);
  const packets = data.packets;
  const count = packets.id.length;
  const RECENT_NS = 1e9;
  const SVG = "http://www.w3.org/2000/svg";
  const SLOTS = 40;
  const view = { time: data.start_ns, playing: false, speed: 1, last: null };

  function stateAt(time) {
    const queues = data.classes.map(function (name) { return { class: name, packets: [] }; });
    const ring = [];
    const drops = [];
    const departures = [];
    let wire = null;
    for (let i = 0; i < count; i++) {
      const arrival = packets.arrival[i];
      if (arrival > time) break;
      const dequeue = packets.dequeue[i];
      const drop = packets.drop[i];
      const transmit = packets.transmit[i];
      const left = dequeue !== null ? dequeue : drop;
      const entry = { id: packets.id[i], flow: data.flows[packets.flow[i]], arrival_ns: arrival };
      if (left === null || time < left) {
        queues[packets.class[i]].packets.push(entry);
      } else if (drop !== null && dequeue === null) {
        if (time - drop < RECENT_NS) {
          drops.push(Object.assign(entry, {
            class: data.classes[packets.class[i]],
            reason: packets.reason[i] === null ? "" : data.reasons[packets.reason[i]],
            time_ns: drop,
          }));
        }
      } else if (transmit === null || time < transmit) {
        ring.push(entry);
      } else {
        const end = packets.wire_end[i];
        if (end !== null && time < end) {
          wire = Object.assign(entry, { transmit_ns: transmit, wire_end_ns: end, size_bytes: packets.size[i] });
        }
        if (time - transmit < RECENT_NS) {
          departures.push(Object.assign({}, entry, {
            transmit_ns: transmit,
            delay_ms: packets.delay_ns[i] === null ? null : packets.delay_ns[i] / 1e6,
          }));
        }
      }
    }
    drops.reverse();
    departures.reverse();
    return { time_ns: time, queues: queues, ring: ring, wire: wire, drops: drops, departures: departures };
  }

  function svg(tag, attributes, text) {
    const made = document.createElementNS(SVG, tag);
    Object.keys(attributes).forEach(function (name) { made.setAttribute(name, attributes[name]); });
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function seconds(time) {
    return (time / 1e9).toFixed(6) + " s";
  }

  const ROW = 46;
  const QUEUE_X = 120;
  const SLOT = 14;
  const RING_X = QUEUE_X + SLOTS * SLOT + 30;
  const WIRE_X = RING_X + 110;
  const WIDTH = WIRE_X + 170;

  function draw(state) {
    const picture = document.getElementById("queue-picture");
    const height = 40 + data.classes.length * ROW;
    picture.setAttribute("viewBox", "0 0 " + WIDTH + " " + height);
    picture.replaceChildren();
    picture.appendChild(svg("text", { x: QUEUE_X, y: 16, class: "heading" }, "queue (next to leave on the right)"));
    picture.appendChild(svg("text", { x: RING_X, y: 16, class: "heading" }, "transmit ring"));
    picture.appendChild(svg("text", { x: WIRE_X, y: 16, class: "heading" }, "on the wire"));
    state.queues.forEach(function (queue, row) {
      const y = 28 + row * ROW;
      picture.appendChild(svg("text", { x: 8, y: y + 22, class: "name" }, queue.class));
      picture.appendChild(svg("text", { x: 8, y: y + 38, class: "count" }, queue.packets.length + " packets"));
      picture.appendChild(svg("rect", { x: QUEUE_X - 2, y: y, width: SLOTS * SLOT + 4, height: 32, class: "lane" }));
      const shown = queue.packets.slice(0, SLOTS);
      shown.forEach(function (entry, k) {
        const box = svg("rect", {
          x: QUEUE_X + (SLOTS - 1 - k) * SLOT,
          y: y + 3,
          width: SLOT - 3,
          height: 26,
          fill: data.colours[entry.flow],
        });
        box.appendChild(svg("title", {}, entry.flow + " #" + entry.id + ", arrived " + seconds(entry.arrival_ns)));
        picture.appendChild(box);
      });
      if (queue.packets.length > SLOTS) {
        picture.appendChild(svg("text", { x: QUEUE_X + 2, y: y + 44, class: "count" }, "+" + (queue.packets.length - SLOTS) + " more behind"));
      }
    });
    const ringY = 28;
    picture.appendChild(svg("rect", { x: RING_X - 2, y: ringY, width: 84, height: 32, class: "lane" }));
    state.ring.slice(0, 5).forEach(function (entry, k) {
      picture.appendChild(svg("rect", { x: RING_X + k * 16, y: ringY + 3, width: 13, height: 26, fill: data.colours[entry.flow] }));
    });
    picture.appendChild(svg("rect", { x: WIRE_X, y: ringY, width: 150, height: 32, class: "lane" }));
    if (state.wire) {
      const done = (state.time_ns - state.wire.transmit_ns) / (state.wire.wire_end_ns - state.wire.transmit_ns);
      picture.appendChild(svg("rect", { x: WIRE_X, y: ringY, width: 150 * Math.min(1, Math.max(0, done)), height: 32, fill: data.colours[state.wire.flow] }));
      picture.appendChild(svg("text", { x: WIRE_X + 4, y: ringY + 48, class: "count" }, state.wire.flow + " #" + state.wire.id + ", " + state.wire.size_bytes + " B"));
    } else {
      picture.appendChild(svg("text", { x: WIRE_X + 4, y: ringY + 48, class: "count" }, "idle"));
    }
  }

  function list(id, items, describe) {
    const holder = document.getElementById(id);
    holder.replaceChildren();
    items.slice(0, 12).forEach(function (item) {
      const line = document.createElement("li");
      line.textContent = describe(item);
      holder.appendChild(line);
    });
    if (!items.length) {
      const line = document.createElement("li");
      line.textContent = "none";
      line.className = "none";
      holder.appendChild(line);
    }
  }

  function show() {
    const state = stateAt(view.time);
    draw(state);
    document.getElementById("queue-clock").textContent = "t = " + seconds(view.time);
    document.getElementById("queue-time").value = String(view.time);
    list("queue-drops", state.drops, function (drop) {
      return seconds(drop.time_ns) + "  " + drop.flow + " #" + drop.id + " dropped from " + drop.class + (drop.reason ? " (" + drop.reason + ")" : "");
    });
    list("queue-departures", state.departures, function (left) {
      return seconds(left.transmit_ns) + "  " + left.flow + " #" + left.id + (left.delay_ms === null ? "" : ", " + left.delay_ms.toFixed(2) + " ms since it was sent");
    });
    document.getElementById("queue-play").textContent = view.playing ? "Pause" : "Play";
  }

  function seek(time) {
    view.time = Math.min(data.end_ns, Math.max(data.start_ns, Number(time)));
    show();
  }

  function frame(now) {
    if (!view.playing) return;
    if (view.last !== null) {
      view.time += (now - view.last) * 1e6 * view.speed;
      if (view.time >= data.end_ns) {
        view.time = data.end_ns;
        view.playing = false;
      }
    }
    view.last = now;
    show();
    if (view.playing) window.requestAnimationFrame(frame);
  }

  function play() {
    if (view.time >= data.end_ns) view.time = data.start_ns;
    view.playing = true;
    view.last = null;
    window.requestAnimationFrame(frame);
    show();
  }

  function pause() {
    view.playing = false;
    show();
  }

  const scrubber = document.getElementById("queue-time");
  scrubber.min = String(data.start_ns);
  scrubber.max = String(data.end_ns);
  scrubber.step = "1000";
  scrubber.addEventListener("input", function () { pause(); seek(scrubber.value); });
  document.getElementById("queue-play").addEventListener("click", function () {
    if (view.playing) pause(); else play();
  });
  const speed = document.getElementById("queue-speed");
  speed.addEventListener("change", function () { view.speed = Number(speed.value); });
  view.speed = Number(speed.value);
  show();

  // For scripts and tests: where every packet is at a time, and the controls.
  window.qoslabQueue = {
    data: data,
    stateAt: stateAt,
    seek: seek,
    play: play,
    pause: pause,
    time: function () { return view.time; },
    playing: function () { return view.playing; },
  };
})();
