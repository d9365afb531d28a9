/** The benchmark control's activity: returns its input, does nothing else. */
export function createControlActivities() {
  return {
    async noop(input: string): Promise<string> {
      return input;
    },
  };
}

export type ControlActivities = ReturnType<typeof createControlActivities>;
