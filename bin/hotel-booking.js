#!/usr/bin/env node
// The `hotel-booking` command: runs src/starter.ts through tsx, so the installed tool and
// `npm run starter` are one and the same code, with no build step.
'use strict';
require('tsx/cjs');
require('../src/starter.ts');
