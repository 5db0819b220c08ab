// tne-ai serve: the helpers every page shares (play, watch, review).
"use strict";
const $ = (id) => document.getElementById(id);

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function say(text) { $("message").textContent = text || ""; }

// the square a decision in notation ends on ("tile r f7" -> "f7"), or null: what a click on the board chooses
const SQ = /^[a-p](1[01]|[1-9])$/;
function squareOf(move) {
  const words = move.split(" ");
  return words.length > 1 && SQ.test(words[words.length - 1]) ? words[words.length - 1] : null;
}
