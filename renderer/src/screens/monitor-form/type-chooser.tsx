import { useId } from 'react';
import type { MonitorType } from './monitor-form-model.ts';
import { TYPES } from './monitor-options.ts';

/** The type of a new monitor, as cards of radios. */
export function TypeChooser({ type, onChoose }: { type: MonitorType | undefined; onChoose(type: MonitorType): void }) {
  const id = useId();
  return (
    <fieldset className="type-cards">
      <legend>Type</legend>
      {TYPES.map((option) => (
        <div key={option.type} className={`type-card${type === option.type ? ' type-card-chosen' : ''}`}>
          <input
            type="radio"
            id={`${id}-${option.type}`}
            name={`${id}-type`}
            value={option.type}
            checked={type === option.type}
            aria-describedby={`${id}-${option.type}-summary`}
            onChange={() => onChoose(option.type)}
          />
          <label htmlFor={`${id}-${option.type}`}>{option.title}</label>
          <small id={`${id}-${option.type}-summary`}>{option.summary}</small>
        </div>
      ))}
    </fieldset>
  );
}
