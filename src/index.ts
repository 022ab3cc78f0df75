// The package's programmatic entry: build the app in-process (see README, "In-process use").
export { type AppOptions, buildApp } from './app.js';
export { type Config, parseConfig } from './config.js';
export type { FixtureDocument } from './sandbox/fixtures.js';
