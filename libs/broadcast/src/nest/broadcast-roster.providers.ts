import type { Provider } from '@nestjs/common';
import { BroadcastRoster } from '../core/features/roster/broadcast-roster.js';
import { BroadcastEngine } from '../engine/broadcast.engine.js';

/** `BroadcastRoster` injectable: the engine's live roster of instances. */
export const rosterProvider: Provider = {
  provide: BroadcastRoster,
  inject: [BroadcastEngine],
  useFactory: (engine: BroadcastEngine) => engine.roster,
};
