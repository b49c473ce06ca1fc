import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
} from '@nestjs/common';

/** Says when shutdown starts and when it is done, so the log shows a clean stop. */
@Injectable()
export class ShutdownLogger implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');

  beforeApplicationShutdown(signal?: string): void {
    this.logger.log(
      `${signal ?? 'close()'}: leaving the broadcast group, freeing its lock, closing connections`,
    );
  }

  onApplicationShutdown(): void {
    this.logger.log('Stopped cleanly');
  }
}
