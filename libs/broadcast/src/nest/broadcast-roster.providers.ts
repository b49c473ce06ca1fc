import type { Provider } from '@nestjs/common';
import { BroadcastEngine } from '../engine/broadcast.engine.js';
import { BroadcastRoster, rosterView } from '../views/broadcast-roster.view.js';

/** `BroadcastRoster` injectable: the engine's live roster of instances, without start or stop. */
export const rosterProvider: Provider = {
  provide: BroadcastRoster,
  inject: [BroadcastEngine],
  useFactory: (engine: BroadcastEngine) => rosterView(engine.roster),
};
