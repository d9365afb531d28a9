#!/usr/bin/env node
// The `hotel-booking` command. In a checkout it runs src/starter.ts through tsx, so that
// `npm run starter` and this command are one and the same code; where only the compiled product is
// installed (the container image: dist/, no src/, no tsx) it runs dist/starter.js.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const source = join(__dirname, '..', 'src', 'starter.ts');
if (existsSync(source)) {
  require('tsx/cjs');
  require(source);
} else {
  require(join(__dirname, '..', 'dist', 'starter.js'));
}
