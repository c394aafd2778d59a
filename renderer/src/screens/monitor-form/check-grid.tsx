import { useId } from 'react';
import type { ControlProps } from '../../forms.tsx';

/** A grid of checkboxes, one per option, giving the values of those ticked in the order they were ticked. */
export function CheckGrid({
  options,
  value,
  onChange,
  control,
}: {
  options: { value: string; label: string }[];
  value: string[];
  onChange(value: string[]): void;
  control: Omit<ControlProps, 'id'>;
}) {
  const id = useId();
  const toggle = (option: string, on: boolean) => onChange(on ? [...value, option] : value.filter((v) => v !== option));
  return (
    <div className="region-grid">
      {options.map((option) => (
        <div className="check-row" key={option.value}>
          <input
            type="checkbox"
            id={`${id}-${option.value}`}
            checked={value.includes(option.value)}
            aria-invalid={control['aria-invalid']}
            aria-describedby={control['aria-describedby']}
            onChange={(e) => toggle(option.value, e.target.checked)}
          />
          <label htmlFor={`${id}-${option.value}`}>{option.label}</label>
        </div>
      ))}
    </div>
  );
}
